package io.blockxfer.tck.directory;

import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The directory conformance rules by id: what each checks, its class, the fault it needs, where
 * to look when it fails, and the deliberately broken directories or memberships the kit's own
 * tests run to prove it can fail. Each rule of {@link DirectoryConformanceSuite} is declared with
 * {@code @DirectoryRuleTest(DirectoryRules.X)}, which gives it its display name
 * ({@code [D3] (required) ...}) and the id of every assertion message; the kit's own tests check
 * that every entry has exactly one rule and every rule an entry.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public enum DirectoryRules {

    // ------------------------------------------------------------------ D: the directory contract
    D1(Area.DIRECTORY, Kind.REQUIRED, null,
            "a published entry is in a new watch's snapshot byte for byte, and a running watch sees it put at a"
                    + " revision above its snapshot's, the publication's own; both report the key attached to the"
                    + " publication's lease, the one its value was made for, and a plain put attached to none",
            "publish must return after the write; list and watch the prefix; carry the store's revisions; grant the"
                    + " lease before making the value, and report each key's lease (etcd: KeyValue.getLease())",
            "empty-snapshots, shifts-revisions, reports-no-leases"),
    D2(Area.DIRECTORY, Kind.REQUIRED, null,
            "publishing again under a member id replaces its entry at a higher revision, and closing the older"
                    + " publication leaves the newer entry alone",
            "a put with a new lease takes the key over; revoking the old lease must not delete it",
            "closing-an-old-publication-deletes-the-new-entry"),
    D3(Area.DIRECTORY, Kind.REQUIRED, null,
            "closing a publication, or the directory, deletes its entry at once (the goodbye), long before its TTL",
            "Publication.close must revoke the lease; Directory.close must close its publications",
            "close-without-goodbye"),
    D4(Area.DIRECTORY, Kind.CAPABILITY, DirectoryFault.CRASH,
            "the entry of a client that stopped without a goodbye stays for its TTL and is deleted once the TTL is"
                    + " over",
            "attach the entry to a lease of the TTL asked for; the lease must expire when no longer renewed",
            "publishes-without-a-lease, expires-at-half-the-ttl"),
    D5(Area.DIRECTORY, Kind.REQUIRED, null,
            "under puts and deletes from several clients, every watch delivers events in revision order, none"
                    + " twice, the same sequence to every watch, and they turn its snapshot into the directory's"
                    + " content",
            "one ordered stream per watch; DirectoryDispatcher.Relay drops replays",
            "delivers-out-of-order, delivers-twice"),
    D6(Area.DIRECTORY, Kind.REQUIRED, null,
            "a publication whose client runs outlives many TTLs: its lease is kept alive",
            "renew each lease well within its TTL (etcd: a keep-alive every TTL/3)",
            "no-keep-alive"),
    D7(Area.DIRECTORY, Kind.CAPABILITY, DirectoryFault.OUTAGE,
            "after an outage a watch says it was disconnected and is back, and delivers every change made"
                    + " meanwhile, once",
            "resume from DirectoryDispatcher.Relay.resumeRevision(); report disconnected and resumed",
            "forgets-events-of-an-outage, replays-after-reconnect"),
    D8(Area.DIRECTORY, Kind.CAPABILITY, DirectoryFault.COMPACTION,
            "when the history of an outage was compacted, the watch resyncs: its differences (puts and deletes)"
                    + " arrive marked as resync, nothing missed, nothing twice",
            "on a compacted revision list the prefix again and hand it to Relay.listed",
            "resync-without-deletes"),
    D9(Area.DIRECTORY, Kind.CAPABILITY, DirectoryFault.LEASE_LOSS,
            "a lease revoked elsewhere is reported to its publication's listener once, the publication says it is"
                    + " lost, and the entry is gone",
            "watch the keep-alive: a lease the directory no longer knows is lost; tell PublicationListener once",
            "hides-lease-loss"),
    D10(Area.DIRECTORY, Kind.REQUIRED, null,
            "bad TTLs, member ids and values (1 MiB) are refused with IllegalArgumentException naming them, nulls"
                    + " with NullPointerException, and nothing is published",
            "DirectoryLimits.checkTtl/checkMemberId/checkValue before anything is sent",
            "accepts-a-one-second-ttl"),
    D11(Area.DIRECTORY, Kind.REQUIRED, null,
            "close is idempotent, says goodbye for every publication, stops every watch, and every call after it"
                    + " throws IllegalStateException",
            "check the closed state first in publish and watch",
            "answers-after-close"),
    D12(Area.DIRECTORY, Kind.REQUIRED, null,
            "listeners are called on a thread of the directory's own, one call at a time, and a listener that"
                    + " throws still gets the next call",
            "deliver through DirectoryDispatcher; never on the caller's thread or a client library's event loop",
            "calls-listeners-on-the-caller, stops-after-a-listener-throws"),
    D13(Area.DIRECTORY, Kind.CAPABILITY, DirectoryFault.OUTAGE,
            "an unreachable directory fails publish and watch within the operation timeout with a"
                    + " DirectoryUnavailableException that names the directory",
            "give every call a deadline; include the directory's toString (its endpoints) in the message",
            "hangs-when-unreachable, vague-unreachable-error"),
    D14(Area.SCOPES, Kind.REQUIRED, null,
            "a watch of one member's key (DirectoryScope.member) follows that key alone: an empty snapshot while it"
                    + " does not exist, then its put and its delete, and a snapshot of that one entry once it exists;"
                    + " never a key that merely starts with it (b1 for b) nor the member's group key",
            "watch the one key: etcd's range [key, key + \"\\0\") (DirectoryScope.start and end), not a prefix"
                    + " watch of the key",
            "member-scope-matches-a-prefix"),
    D15(Area.SCOPES, Kind.REQUIRED, null,
            "a watch of a group (DirectoryScope.group) follows that group's group keys alone: not those of a group"
                    + " whose name starts with its name (dec and decode), nor any member key",
            "watch the range DirectoryScope.group(g).start(prefix) to .end(prefix): the '/' after the group's name"
                    + " keeps dec and decode apart",
            "group-scope-without-its-slash"),
    D16(Area.SCOPES, Kind.REQUIRED, null,
            "a publication with a group writes the member's key and its group key with the same value, both"
                    + " attached to the publication's lease, at the publication's revision; restore writes both back,"
                    + " at one revision, after both were deleted; the goodbye deletes both",
            "publish with a group: one transaction that puts both keys with the lease; Publication.restore likewise;"
                    + " revoking the lease deletes every key attached to it",
            "writes-the-group-key-apart, restore-forgets-the-group-key"),
    D17(Area.SCOPES, Kind.REQUIRED, null,
            "a watch of every member (watch(listener), DirectoryScope.members()) lists and follows member keys"
                    + " only: a grouped member is delivered once, under its member key, never under its group key",
            "watch [prefix, prefix + \"~\") (DirectoryScope.members()), not every key under the prefix",
            "members-watch-sees-group-keys"),
    D18(Area.SCOPES, Kind.REQUIRED, null,
            "a read of a scope (Directory.read) holds what a watch's snapshot of it holds: nothing for an absent"
                    + " member, at a revision no older than a write before it; another client's publication with its"
                    + " value, revision and lease, and its group key in a read of the group; a read of a closed"
                    + " directory is refused with IllegalStateException",
            "one linearizable range read of the scope (etcd: a range request of DirectoryScope.start to .end), each"
                    + " entry with its key's lease",
            "reads-a-stale-snapshot"),
    D19(Area.SCOPES, Kind.REQUIRED, null,
            "a watch from a read (watch(scope, from, listener)) delivers that read as its snapshot, then the"
                    + " changes after its revision, those made between the read and the watch's start included"
                    + " (each, or where the directory cannot replay them their differences), and nothing at or"
                    + " before it",
            "hand the read to DirectoryDispatcher.Relay.listed and watch from its revision + 1",
            "watches-from-now, misses-changes-before-the-watch"),
    D20(Area.SCOPES, Kind.REQUIRED, null,
            "a conditional delete (Publication.deleteIfAt) deletes the member key and its group key only while the"
                    + " member key's last write is at the revision given: refused once a newer publication wrote"
                    + " both keys (they stay as written), done at their revision (both gone, the delete delivered),"
                    + " and the lease stays until close",
            "one transaction: if the member key's mod revision equals the revision, delete both keys",
            "deletes-unconditionally, deletes-the-member-key-alone"),

    // ------------------------------------------------------------------ B: membership over a loopback transport
    B1(Area.MEMBERSHIP, Kind.REQUIRED, null,
            "members that join find each other: each registers the others, transfers land both ways, and each add"
                    + " is told once",
            "the snapshot's entries and every later put must reach addPeerAsync",
            "empty-snapshots"),
    B2(Area.MEMBERSHIP, Kind.REQUIRED, null,
            "a member that restarts under its id with a new epoch is re-registered: transfers reach its new region",
            "a put of a new epoch must re-add the member",
            "keeps-the-first-entry"),
    B3(Area.MEMBERSHIP, Kind.REQUIRED, null,
            "a member that says goodbye is removed: its transfer in flight is reported failed once, and no transfer"
                    + " to it is submitted after",
            "a delete must reach removePeer",
            "ignores-deletes"),
    B4(Area.MEMBERSHIP, Kind.CAPABILITY, DirectoryFault.CRASH,
            "a member whose process stopped without a goodbye is removed once its lease expired",
            "the delete of an expired lease must reach removePeer",
            "ignores-deletes"),
    B5(Area.MEMBERSHIP, Kind.CAPABILITY, DirectoryFault.RAW_WRITE,
            "under a key ring, entries signed with an unknown key or the wrong key, unsigned entries, and signed"
                    + " entries holding an unsigned descriptor are refused with their reason; none reaches the"
                    + " transport",
            "MemberEntry.decode with the ring, and DeploymentKeyRing.verify of the descriptor, before addPeerAsync",
            "launders-signatures, reports-no-refusals"),
    B6(Area.MEMBERSHIP, Kind.CAPABILITY, DirectoryFault.RAW_WRITE,
            "garbage, a 1 MiB value, a key below the prefix that names no member, and an entry under another"
                    + " member's key are refused with their reason; none reaches the transport, and the membership"
                    + " goes on",
            "check the key, the size before reading, the envelope, and the id inside against the key",
            "accepts-any-key, parses-oversized-values, dies-on-garbage"),
    B7(Area.MEMBERSHIP, Kind.CAPABILITY, DirectoryFault.RAW_WRITE,
            "a replayed older entry of a live member is refused (off its lease, or stale) and never registered, and"
                    + " the member ends registered with its own entry; its last entry written again after it left is"
                    + " refused and brings nothing back",
            "check the entry's lease against the key's, and remember the highest epoch per member, also after it"
                    + " left",
            "launders-epochs"),
    B8(Area.MEMBERSHIP, Kind.CAPABILITY, DirectoryFault.RAW_WRITE,
            "signed entries of another block length, fingerprint or backend are refused as incompatible; none"
                    + " reaches the transport",
            "compare backend, block length and fingerprint before addPeerAsync",
            "launders-descriptors"),
    B9(Area.MEMBERSHIP, Kind.CAPABILITY, DirectoryFault.LEASE_LOSS,
            "a member whose lease was lost notices, says so, publishes again with a new epoch, and is registered"
                    + " again with it",
            "PublicationListener.leaseLost must lead to a new publication with a higher epoch",
            "hides-lease-loss"),
    B10(Area.MEMBERSHIP, Kind.CAPABILITY, DirectoryFault.OUTAGE,
            "while a member's directory is unreachable its peers stay and transfers go on; afterwards the members"
                    + " that left are removed and those that joined added, each once",
            "do nothing to peers on disconnect; apply the resumed or resynced events",
            "forgets-events-of-an-outage, drops-peers-when-disconnected"),
    B11(Area.MEMBERSHIP, Kind.REQUIRED, null,
            "a membership listener that throws from every call keeps getting calls, and the membership goes on",
            "catch and log each listener call",
            "stops-after-a-listener-throws"),
    B12(Area.MEMBERSHIP, Kind.REQUIRED, null,
            "bad TTLs and member ids are refused naming them; close is idempotent, says goodbye, leaves the"
                    + " transport and its peers, and later calls throw IllegalStateException",
            "Membership.Builder checks; close revokes the lease and nothing else",
            "close-without-goodbye"),
    B13(Area.MEMBERSHIP, Kind.TIMING, DirectoryFault.RAW_WRITE,
            "a member flapping faster than the flap interval changes in the transport at most once per interval,"
                    + " ending with its latest entry",
            "MemberTable's coalescing: hold changes until the interval ends, then apply the latest",
            "flap-interval-ignored"),
    B14(Area.MEMBERSHIP, Kind.CAPABILITY, DirectoryFault.LEASE_LOSS,
            "a member whose own lease was lost re-registers each member it holds once it published again (one"
                    + " addPeerAsync each, told once as memberReRegistered); a member that left before is not"
                    + " re-added, and transfers land",
            "the others removed it and tore down their side: after a loss, the next publication re-adds the members"
                    + " held",
            "hides-re-registrations"),
    B15(Area.MEMBERSHIP, Kind.CAPABILITY, DirectoryFault.RAW_WRITE,
            "a member that starts after another left never takes it for a member: the departed member's genuine"
                    + " last entry, written back to its key without a lease or under another client's lease, is"
                    + " refused as off its lease by the late starter (and by one that saw the member leave), and"
                    + " nothing of it reaches a transport",
            "report the lease each key is attached to, from the store, in listings and events alike; refuse an"
                    + " entry whose signed lease is not the key's (EntryCheck)",
            "reports-signed-leases"),
    B16(Area.OWN_ENTRY, Kind.TIMING, DirectoryFault.RAW_WRITE,
            "a member whose key is overwritten (garbage, or its own bytes without its lease) or deleted while its"
                    + " lease lives restores its entry under that lease: same epoch, no lease loss, no publication,"
                    + " no re-registration; a member watching it keeps it, and transfers land both ways",
            "Publication.restore must put the publication's value again with its lease; the membership restores"
                    + " instead of publishing anew",
            "cannot-restore"),
    B17(Area.ON_DEMAND, Kind.REQUIRED, null,
            "a membership that follows no member (followNone) learns nothing of a member that joins until it resolves"
                    + " it; concurrent resolves of that member share one registration (one addPeerAsync, told once)"
                    + " and complete with its epoch, transfers land, and members that join later still reach nothing",
            "followNone watches only this process's own keys; resolve watches DirectoryScope.member(id) alone and"
                    + " joins a resolution under way",
            "follows-every-member, widens-a-member-watch"),
    B18(Area.ON_DEMAND, Kind.CAPABILITY, DirectoryFault.RAW_WRITE,
            "resolving an absent member fails as NO_SUCH_MEMBER; resolving one whose entry is refused (an unknown"
                    + " key, off its lease) fails as REFUSED with the refusal and its reason, told to the listeners;"
                    + " nothing of either reaches the transport",
            "check the resolved entry as every entry (EntryCheck) and fail the resolution with the refusal",
            "launders-resolved-entries, hides-refused-entries"),
    B19(Area.ON_DEMAND, Kind.CAPABILITY, DirectoryFault.CRASH,
            "a resolved member is followed: its new epoch re-registers it, its goodbye removes it, and its expired"
                    + " lease removes it within its TTL, the deployment's expiry grace and one second",
            "keep the resolution's watch of the member's key open and apply its events as any member's",
            "drops-events-of-a-member-watch, ignores-deletes-of-a-member-watch"),
    B20(Area.HELD_SET, Kind.TIMING, null,
            "past maxHeld the resolved member idle longest is released (told as memberReleased, removed from the"
                    + " transport), never one with a transfer in flight, which then ends done; release(id) drops a"
                    + " member and resolving it again works",
            "sample DataTransport.traffic: release only members with nothing in flight, the one idle longest first",
            "holds-fewer-than-its-limit, reports-nothing-in-flight"),
    B21(Area.ON_DEMAND, Kind.REQUIRED, null,
            "a membership that follows a group (followGroups) holds exactly that group's members, each added once"
                    + " from its group key, and resolves others on demand; an eager membership of the same prefix holds"
                    + " every member once, whatever its group",
            "followGroups watches DirectoryScope.group(g) per group; a publication with a group writes the group key",
            "follows-every-member, publishes-no-group-key"),
    B22(Area.ON_DEMAND, Kind.CAPABILITY, DirectoryFault.RAW_WRITE,
            "a delete seen through one watch never removes a member held through another: a member of group"
                    + " prefill resolved by a follower of group decode stays held, its transport untouched and"
                    + " its resolution complete at once, after a stranger put its entry under its decode group key"
                    + " (refused as ID_MISMATCH) and deleted that key",
            "apply a delete (or a copy off the lease) only to the key the member's accepted entry came from; the"
                    + " member leaves when no watched key holds its entry (EntryKeys)",
            "deletes-by-member-id"),
    B23(Area.ON_DEMAND, Kind.REQUIRED, null,
            "a resolution never outlives its member's registration: once a resolved member left and was removed,"
                    + " resolving it fails as NO_SUCH_MEMBER at once (not at the resolve timeout), its return under"
                    + " the same id reaches nothing until it is resolved again, and then it resolves with its new"
                    + " epoch",
            "end the resolution (close its watch) when the member is removed from the transport or its"
                    + " registration fails; a later resolve reads the key anew",
            "serves-resolutions-from-a-cache"),
    B24(Area.ON_DEMAND, Kind.REQUIRED, null,
            "a process that finds its member id published by a newer epoch of another process stops publishing"
                    + " its own: it is told (entrySuperseded), a fresh resolver finds the newer one, and after the"
                    + " newer one's goodbye the key stays empty (no restore, no new publication)",
            "on a valid entry of a higher epoch under the own id (MEMBER_ID_IN_USE): revoke the lease, restore and"
                    + " publish nothing more",
            "hides-its-own-key-from-its-owner"),
    B25(Area.ON_DEMAND, Kind.TIMING, null,
            "a resolution whose registration is still under way fails as TIMEOUT no sooner than its resolve timeout,"
                    + " as RELEASED when the member is released, as CLOSED when the membership closes, and one whose"
                    + " registration the transport refuses as REGISTRATION_FAILED at once, with its cause; each leaves"
                    + " nothing: the member is not held nor told added, and its registration is taken back from the"
                    + " transport, also when it completes late; resolving again works",
            "end a resolution at its timeout, release, close or failed registration; remove what its registration"
                    + " put in the transport, and ignore the registration's late completion",
            "ignores-its-resolve-timeout, keeps-the-late-registration, hides-failed-registrations"),
    B26(Area.ON_DEMAND, Kind.REQUIRED, null,
            "a released member's highest epoch stays remembered: an older entry of it, written after it was"
                    + " released and left, is refused as STALE_EPOCH when resolved and reaches nothing, while a newer"
                    + " one resolves and takes transfers",
            "keep the highest epoch accepted of every member, released ones too, and check resolved entries against"
                    + " it",
            "forgets-released-epochs"),
    B27(Area.MEMBERSHIP, Kind.CAPABILITY, DirectoryFault.OUTAGE,
            "building a membership on an unreachable directory throws DirectoryUnavailableException naming the"
                    + " directory within its operation timeout, registers nothing and leaves no entry once the"
                    + " directory is back; built again then, it publishes and is found",
            "let the directory's unavailability out of Membership.build, bounded by the operation timeout",
            "hangs-when-unreachable, vague-unreachable-error"),
    B28(Area.ON_DEMAND, Kind.CAPABILITY, DirectoryFault.OUTAGE,
            "a resolution whose read of the directory fails (its client cut off) fails as UNAVAILABLE with the"
                    + " directory's error as its cause, within the directory's operation timeout (+2 s), long before"
                    + " its resolve timeout; it leaves nothing: the member is not held, not registered, not told"
                    + " added; once the directory is back, resolving it works",
            "Directory.read must fail with DirectoryUnavailableException, never answer an empty snapshot, when the"
                    + " directory cannot be reached; a resolution whose read failed ends as UNAVAILABLE (an"
                    + " unreachable directory is not an absent member) and is dropped",
            "reads-nothing-when-unreachable"),
    B29(Area.OWN_ENTRY, Kind.CAPABILITY, DirectoryFault.RAW_WRITE,
            "a member whose key is overwritten back to back for a second restores its entry under its lease at"
                    + " most once at once and then Membership.MAX_RESTORES_PER_SECOND (4) times a second, counted as"
                    + " puts on its lease seen by a watcher, and ends with its entry restored, same epoch, published"
                    + " once",
            "restore at once, then at most once per restore gap, one restore for every overwrite meanwhile; a"
                    + " Publication.restore writes the entry once",
            "restores-over-and-over"),
    B30(Area.MEMBERSHIP, Kind.REQUIRED, null,
            "a member whose registration is being replaced (a new epoch, while the transport's registration of it"
                    + " is held) is left out of members() and not told updated until that registration is in place,"
                    + " then held at its new epoch, with transfers landing in its new region; one whose entry is"
                    + " deleted while that registration runs ends removed: not held, its registration taken back,"
                    + " never told updated",
            "take a member out of members() when its re-registration starts and put it back when addPeerAsync"
                    + " completes; a backend's addPeerAsync must complete only once the peer can take transfers; a"
                    + " removal asked meanwhile must remove what the registration puts in place",
            "completes-registrations-early, keeps-the-late-registration"),
    B31(Area.OWN_ENTRY, Kind.CAPABILITY, DirectoryFault.RAW_WRITE,
            "a member whose key a stranger writes into just before its goodbye, and again right after the member"
                    + " restores its entry, still leaves its key empty once closed (the conditional delete refused,"
                    + " the entry restored over the stranger's bytes and deleted at the restore's revision), and the"
                    + " others remove it",
            "a goodbye deletes the key with Publication.deleteIfAt at the revision of the member's last write,"
                    + " restoring first when someone else's bytes are there, and tries again after a refusal; a"
                    + " conditional delete must delete (a lease revoke leaves keys written without it)",
            "deletes-nothing-at-goodbye"),
    B32(Area.HELD_SET, Kind.TIMING, null,
            "a membership limited to 2 members that resolved 3, each with a transfer in flight, holds all 3 past"
                    + " two samples of their traffic and releases none; once one member's transfer ended, that member"
                    + " alone is released, at the next sample, and every held transfer ends done",
            "sample DataTransport.traffic: a member with a transfer in flight is never released, even above the"
                    + " limit; trim as soon as one is idle",
            "reports-nothing-in-flight"),
    B33(Area.OWN_ENTRY, Kind.CAPABILITY, DirectoryFault.OUTAGE,
            "a member cut off from its directory past its TTL keeps its transfers to the peers it knows while the"
                    + " others remove it; once back, it says its lease was lost (once), publishes again with a higher"
                    + " epoch, is added again by the others, re-registers the member it holds (once), and transfers"
                    + " land both ways",
            "a lease that ran out while its holder was cut off must be reported lost (PublicationListener, or the"
                    + " own key's delete once the watch is back); the publication after the loss re-registers the"
                    + " members held",
            "hides-lease-loss, hides-re-registrations"),
    B34(Area.OWN_ENTRY, Kind.TIMING, DirectoryFault.LEASE_LOSS,
            "a member whose own lease is lost while the flap interval still holds back another member's newer"
                    + " entry and a third member's goodbye re-registers the unchanged member once, gives the changed"
                    + " one its newer entry (told updated, never re-registered at its old epoch) and removes the one"
                    + " that left (never re-added); transfers land in the newer region",
            "the re-registration after a loss takes the members as the flap interval will leave them: a held"
                    + " newer entry instead of the old one, a held removal instead of a re-add",
            "hides-re-registrations");

    /**
     * The groups of rules, each in one class, one {@code @Nested} class of the suite each.
     * <b>Thread safety:</b> immutable.
     */
    public enum Area {
        /** D1-D13, the directory contract: {@code DirectoryContractRules}. */
        DIRECTORY,
        /**
         * D14 on, watches and reads of one key range, publications with a group, conditional deletes:
         * {@code DirectoryScopeRules}.
         */
        SCOPES,
        /** B1-B15, B27 and B30, a membership binding a loopback transport to the directory: {@code MembershipRules}. */
        MEMBERSHIP,
        /** B16, B29, B31, B33 and B34, a member's care of its own entry: {@code OwnEntryRules}. */
        OWN_ENTRY,
        /** B17 on (but B20 and B32), members on demand and groups: {@code OnDemandRules}. */
        ON_DEMAND,
        /** B20 and B32, the limit on members held: {@code HeldSetRules}. */
        HELD_SET;

        /** Whether the rules of this area bind loopback transports (the B rules). */
        public boolean needsTransports() {
            return this != DIRECTORY && this != SCOPES;
        }
    }

    /** How a rule applies to a directory. <b>Thread safety:</b> immutable. */
    public enum Kind {
        /** Every directory must pass it. */
        REQUIRED,
        /** Runs only where the deployment can cause its {@link DirectoryRules#fault()}. */
        CAPABILITY,
        /** Asserts a time bound; needs a machine that is not starved for seconds. */
        TIMING
    }

    private final Area area;
    private final Kind kind;
    private final @Nullable DirectoryFault fault;
    private final String checks;
    private final String whereToLook;
    private final String provenBy;

    DirectoryRules(Area area, Kind kind, @Nullable DirectoryFault fault, String checks,
            String whereToLook, String provenBy) {
        this.area = area;
        this.kind = kind;
        this.fault = fault;
        this.checks = checks;
        this.whereToLook = whereToLook;
        this.provenBy = provenBy;
    }

    /** The rule's group. */
    public Area area() {
        return area;
    }

    /** Whether the rule is required, needs a fault, or asserts a time bound. */
    public Kind kind() {
        return kind;
    }

    /** The fault the rule needs; null when it needs none. */
    public @Nullable DirectoryFault fault() {
        return fault;
    }

    /** What the rule checks. */
    public String checks() {
        return checks;
    }

    /** What to look at in a directory (or membership) when the rule fails. */
    public String whereToLook() {
        return whereToLook;
    }

    /** The broken variants of the kit's own tests that this rule catches, by name (comma-separated). */
    public String provenBy() {
        return provenBy;
    }

    /** The display name: {@code [D3] (required) closing a publication ...}. */
    public String displayName() {
        return "[" + name() + "] (" + kind.name().toLowerCase(Locale.ROOT) + ") " + checks;
    }
}
