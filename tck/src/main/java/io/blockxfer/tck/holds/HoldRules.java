package io.blockxfer.tck.holds;

import java.util.Locale;

/**
 * The hold conformance rules by id: what each checks, its class, where to look when it fails, and
 * the deliberately broken holds, transports or feeds the kit's own tests run to prove it can fail.
 * Each rule of {@link HoldConformanceSuite} is declared with {@code @HoldRuleTest(HoldRules.X)},
 * which gives it its display name ({@code [H3] (required) ...}) and the id of every assertion
 * message; the kit's own tests check that every entry has exactly one rule and every rule an entry.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public enum HoldRules {

    // ------------------------------------------------------------------ hand-offs
    H1(Area.HAND_OFF, Kind.REQUIRED, true,
            "pull: a holder reads the held blocks and releases with its last read; the hold ends RELEASED once, only"
                    + " after the read's bytes arrived (the hold lives while the read is held back), and what the"
                    + " holder read stays the owner's bytes when the owner reuses the blocks at the end",
            "Lease.readAndRelease: the release must ride on the read as its notification, which the transport"
                    + " delivers after the read's bytes",
            "release-before-the-read"),
    H2(Area.HAND_OFF, Kind.REQUIRED, true,
            "a release waits for every transfer under the lease: with two reads in flight, release() and"
                    + " readAndRelease leave the hold live until both reads ended, then it ends RELEASED once",
            "LeaseTransfers: count transfers in flight from submit to their future's end; send the release when"
                    + " none is left",
            "reads-done-at-submit"),
    H3(Area.HAND_OFF, Kind.REQUIRED, false,
            "push: a receiver sends its grant as a notification, the sender's lease arrives by pollLeases, its"
                    + " writes land and the hold ends RELEASED once, only after the last write's bytes are in the"
                    + " receiver's region; a second push that the sender abandons ends ABANDONED; a write with less"
                    + " than a quarter TTL confirmed ahead is refused with LeaseException and moves nothing",
            "Hold.sendGrant, Holds.pollLeases, Lease.writeAndRelease riding on the write's notification; check the"
                    + " confirmed time, on the holder's clock, before a write starts",
            "release-before-the-write, writes-on-a-slow-holder-clock"),
    H4(Area.HAND_OFF, Kind.REQUIRED, true,
            "a cancel revokes without pulling the blocks from under a read: the holder's next transfer fails with"
                    + " LeaseException (REVOKED), the hold lives while the read in flight runs, then ends CANCELLED"
                    + " once",
            "Hold.cancel sends ENDED(CANCELLED) and grants no renewal; the holder stops taking transfers and"
                    + " releases once those in flight ended",
            "holder-ignores-revocation"),

    // ------------------------------------------------------------------ time
    H5(Area.TIME, Kind.REQUIRED, true,
            "a holder that renews keeps its hold for twenty TTLs (manual clocks, a quarter TTL a step), confirmed"
                    + " all along; a read at the end succeeds and the release ends it RELEASED; a hold with a lifetime"
                    + " limit, renewed all along, ends EXPIRED at the first tick after the limit",
            "OwnerSide.onRenew must restart the TTL from the receipt of each renewal and answer RENEWED, never"
                    + " past the hold's lifetime limit on the owner's clock",
            "expiry-ignores-renewals, lifetime-on-a-slow-owner-clock"),
    H6(Area.TIME, Kind.REQUIRED, false,
            "a holder that goes silent loses its hold exactly at its TTL: alive a millisecond before, EXPIRED once"
                    + " at the next tick after, with its blocks",
            "the owner's deadline is its receipt of the last renewal plus the TTL, on the owner's clock; tick"
                    + " ends what passed it",
            "outlives-its-ttl, expires-before-its-ttl"),
    H7(Area.TIME, Kind.REQUIRED, true,
            "renewals delayed beyond the TTL: the hold ends EXPIRED, the late renewals are refused, and a read the"
                    + " holder tries afterwards fails with LeaseException rather than bring the reused blocks",
            "the holder's confirmed time comes only from the owner's answers, measured from its own sending; an"
                    + " ENDED answer stops the lease",
            "holder-trusts-a-slow-clock"),
    H8(Area.TIME, Kind.REQUIRED, true,
            "a read whose end is known at the holder after the lease's confirmed time fails with LeaseException,"
                    + " though its bytes moved",
            "LeaseTransfers.ended: compare the end, on the holder's clock, with the confirmed time",
            "holder-clock-stands-still"),
    H9(Area.TIME, Kind.TIMING, false,
            "a holder that dies (SIGKILLed in another process where the harness places peers there, its transport"
                    + " killed in this JVM otherwise) loses its hold within the TTL and a second, on real clocks, and"
                    + " the owner is told once",
            "the owner's own tick thread must end holds whose deadline passed, whatever else happens",
            "outlives-its-ttl-for-real"),

    // ------------------------------------------------------------------ ends
    H10(Area.ENDS, Kind.REQUIRED, false,
            "a released hold cannot be released, renewed or cancelled again: a second release does nothing, forged"
                    + " late RELEASE and RENEW messages are refused and counted, and no hold is reported ended twice",
            "decide each end once under the lock; look ids up among live holds only",
            "ends-twice"),
    H11(Area.ENDS, Kind.REQUIRED, false,
            "an owner that closes ends every live hold once (CLOSED), none that had ended, tells the holders (their"
                    + " next transfer fails), refuses new holds, and closes idempotently",
            "Holds.close: OwnerSide.closeAll before anything else goes",
            "close-forgets-live-holds"),
    H12(Area.ENDS, Kind.REQUIRED, false,
            "the holds of a peer the owner's transport removed end PEER_REMOVED at the next tick; another peer's"
                    + " holds stay",
            "OwnerSide.tick: ask the transport's traffic(peer) for every peer with holds",
            "ignores-peer-removal"),
    H13(Area.ENDS, Kind.REQUIRED, false,
            "a peer other than the hold's cannot release or renew it: its messages are refused and counted, and the"
                    + " hold expires at its TTL",
            "compare every hold message's sender (Notification.sender) with the hold's peer",
            "trusts-any-sender"),
    H14(Area.ENDS, Kind.REQUIRED, false,
            "bad arguments are refused with IllegalArgumentException naming them and change nothing: an unregistered"
                    + " peer or owner, no blocks, a block outside the region or repeated, a TTL or lifetime limit out of"
                    + " range, a grant accepted twice, a transfer outside the hold or the region or with unequal arrays",
            "check every argument before taking the lock; the region's block count comes from the transport",
            "accepts-blocks-outside-the-region");

    /** The groups of rules, one {@code @Nested} class of the suite each. <b>Thread safety:</b> immutable. */
    public enum Area {
        /** H1-H4: the pull and push hand-offs, releases, cancels. */
        HAND_OFF,
        /** H5-H9: renewals, expiries, the holder's own deadline, a holder that dies. */
        TIME,
        /** H10-H14: each hold ends once; close, removed peers, other peers, bad arguments. */
        ENDS
    }

    /** How a rule applies. <b>Thread safety:</b> immutable. */
    public enum Kind {
        /** Every backend that carries notifications must pass it (with READ where the rule reads). */
        REQUIRED,
        /** Asserts a bound on real time; needs a machine that is not starved for seconds. */
        TIMING
    }

    private final Area area;
    private final Kind kind;
    private final boolean reads;
    private final String checks;
    private final String whereToLook;
    private final String provenBy;

    HoldRules(Area area, Kind kind, boolean reads, String checks, String whereToLook, String provenBy) {
        this.area = area;
        this.kind = kind;
        this.reads = reads;
        this.checks = checks;
        this.whereToLook = whereToLook;
        this.provenBy = provenBy;
    }

    /** The rule's group. */
    public Area area() {
        return area;
    }

    /** Whether the rule is required or timing-dependent. */
    public Kind kind() {
        return kind;
    }

    /** Whether the rule reads the owner's blocks (needs {@code Capability.READ}). */
    public boolean reads() {
        return reads;
    }

    /** What the rule checks. */
    public String checks() {
        return checks;
    }

    /** What to look at when the rule fails. */
    public String whereToLook() {
        return whereToLook;
    }

    /** The broken variants of the kit's own tests that this rule catches, by name (comma-separated). */
    public String provenBy() {
        return provenBy;
    }

    /** The display name of the rule: {@code [H3] (required) push: ...}. */
    public String displayName() {
        return "[" + name() + "] (" + kind.name().toLowerCase(Locale.ROOT) + ") " + checks;
    }
}
