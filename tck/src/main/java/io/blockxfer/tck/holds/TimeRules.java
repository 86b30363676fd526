package io.blockxfer.tck.holds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.holds.Hold;
import io.blockxfer.holds.HoldClock;
import io.blockxfer.holds.HoldEnd;
import io.blockxfer.holds.Holds;
import io.blockxfer.holds.Lease;
import io.blockxfer.holds.LeaseException;
import io.blockxfer.transport.DataTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * H5-H9: time. H5-H8 move manual clocks and check each bound to the millisecond; H9 kills a holder
 * on real time.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class TimeRules extends HoldRuleGroup {

    private static final System.Logger LOG = System.getLogger(TimeRules.class.getName());
    private static final Duration QUARTER = HoldFixture.TTL.dividedBy(4);

    TimeRules(HoldConformanceSuite suite) {
        super(suite);
    }

    @HoldRuleTest(HoldRules.H5)
    final void aHolderThatRenewsKeepsItsHold() throws Exception {
        HoldFixture fx = pair();
        Hold hold = fx.hold(3);
        Lease lease = fx.confirmed(hold);
        for (int step = 1; step <= 80; step++) {
            fx.advance(QUARTER);
            fx.tick();
            int s = step;
            assertTrue(hold.isLive(), () -> fx.msg("the hold ended after " + s + " quarter TTLs of renewals: "
                    + hold.end()));
            assertEquals(Lease.Status.CONFIRMED, lease.status(), fx.msg("the lease is confirmed after " + s
                    + " quarter TTLs"));
        }
        assertTrue(lease.remaining().compareTo(HoldFixture.TTL.dividedBy(2)) > 0,
                fx.msg("more than half the TTL confirmed ahead: " + lease.remaining()));
        fx.done(lease.readAndRelease(new int[] {8}, new int[] {3}), "the read after twenty TTLs");
        assertTrue(fx.holderHasOwners(8, 3), fx.msg("the read brought the owner's bytes"));
        assertEquals(List.of(HoldEnd.Reason.RELEASED), fx.awaitEnds(1).stream().map(HoldEnd::reason).toList(),
                fx.msg("released once"));
        assertTrue(fx.owner().stats().renewalsGranted() >= 80, fx.msg("every renewal was granted: "
                + fx.owner().stats()));
        // a lifetime limit of three TTLs ends a hold at that limit however faithfully it is renewed
        Hold limited = fx.owner().create("holder", new int[] {4}, HoldFixture.TTL, HoldFixture.TTL.multipliedBy(3));
        fx.confirmed(limited);
        for (int step = 1; step <= 11; step++) {
            fx.advance(QUARTER);
            fx.tick();
        }
        assertTrue(limited.isLive() && fx.ends().isEmpty(), fx.msg("a hold renewed all along is alive a quarter TTL"
                + " before its lifetime limit of three TTLs: " + limited));
        fx.ownerClock.advance(QUARTER.multipliedBy(2));
        fx.owner().tick();
        List<HoldEnd> ends = fx.ends();
        assertEquals(1, ends.size(), fx.msg("a hold renewed all along ends at the first tick after its lifetime"
                + " limit: " + ends));
        assertEquals(HoldEnd.Reason.EXPIRED, ends.get(0).reason(), fx.msg("ended by its lifetime limit"));
    }

    @HoldRuleTest(HoldRules.H6)
    final void aSilentHolderLosesItsHoldAtItsTtl() throws Exception {
        HoldFixture fx = pair();
        Hold hold = fx.hold(1, 2);
        fx.confirmed(hold); // the owner's deadline is now its clock's reading plus the TTL
        fx.ownerClock.advance(HoldFixture.TTL.minus(HoldFixture.MS));
        fx.owner().tick();
        assertTrue(fx.ends().isEmpty() && hold.isLive(), fx.msg("alive a millisecond before its TTL: " + hold));
        fx.ownerClock.advance(HoldFixture.MS.multipliedBy(2));
        fx.owner().tick();
        List<HoldEnd> ends = fx.ends();
        assertEquals(1, ends.size(), fx.msg("ended at the first tick after its TTL: " + ends));
        assertEquals(HoldEnd.Reason.EXPIRED, ends.get(0).reason(), fx.msg("expired"));
        assertEquals(2, ends.get(0).blockCount(), fx.msg("with its blocks"));
        fx.ownerClock.advance(HoldFixture.TTL.multipliedBy(3));
        fx.assertNoEnds("an expired hold ends once");
    }

    @HoldRuleTest(HoldRules.H7)
    final void renewalsDelayedPastTheTtlEndTheHoldAndALaterReadFails() throws Exception {
        HoldFixture fx = pair();
        Hold hold = fx.hold(4);
        Lease lease = fx.confirmed(hold);
        fx.pauseOwner();
        for (int i = 0; i < 4; i++) {
            fx.advance(QUARTER);
            fx.holder().tick(); // renewals go out, and wait at the owner
            fx.exchange();
        }
        fx.advance(HoldFixture.MS);
        fx.owner().tick();
        List<HoldEnd> ends = fx.ends();
        assertEquals(List.of(HoldEnd.Reason.EXPIRED), ends.stream().map(HoldEnd::reason).toList(),
                fx.msg("the hold expired: its renewals had not arrived within the TTL"));
        fx.reuse(ends.get(0));
        long refused = fx.owner().stats().renewalsRefused();
        fx.resumeOwner();
        fx.exchangeUntil("the late renewals to reach the owner", () -> fx.owner().stats().renewalsRefused() > refused);
        assertTrue(fx.owner().stats().renewalsRefused() > refused, fx.msg("the late renewals were refused: "
                + fx.owner().stats()));
        assertFalse(hold.isLive(), fx.msg("a late renewal does not bring the hold back"));
        CompletableFuture<Void> read = lease.read(new int[] {8}, new int[] {4});
        LeaseException e = fx.leaseFailure(read, "a read after the hold expired");
        assertTrue(e.endReason().isPresent(), fx.msg("the lease ended: " + e));
        fx.assertNoEnds("an expired hold ends once");
    }

    @HoldRuleTest(HoldRules.H8)
    final void aReadEndingAfterTheConfirmedTimeFails() throws Exception {
        HoldFixture fx = pair();
        Hold hold = fx.hold(5);
        Lease lease = fx.confirmed(hold);
        fx.gate().shut();
        CompletableFuture<Void> read = lease.read(new int[] {8}, new int[] {5});
        fx.advance(HoldFixture.TTL.plus(HoldFixture.MS));
        fx.owner().tick();
        List<HoldEnd> ends = fx.ends();
        assertEquals(List.of(HoldEnd.Reason.EXPIRED), ends.stream().map(HoldEnd::reason).toList(),
                fx.msg("the hold expired while the read was held back"));
        fx.reuse(ends.get(0));
        fx.gate().open();
        LeaseException e = fx.leaseFailure(read, "a read that ended after the lease's confirmed time");
        assertTrue(String.valueOf(e.getMessage()).contains(Long.toHexString(hold.id())),
                fx.msg("the failure names the hold: " + e));
    }

    @HoldRuleTest(HoldRules.H9)
    final void aHolderThatDiesLosesItsHoldWithinItsTtlAndASecond() throws Exception {
        HoldFixture fx = fx();
        DataTransport ownerTransport = fx.open("owner", HoldFixture.OWNER);
        List<HoldEnd> ends = new ArrayList<>();
        Holds owner = fx.keep(fx.breakage.owner(Holds.builder(fx.breakage.ownerTransport(ownerTransport))
                .tickInterval(Duration.ofMillis(20)).pumpNotifications(n -> { }), HoldClock.system()).build());
        try (MortalHolder holder = MortalHolder.open(fx, fx.holderJvmArgs)) {
            ownerTransport.addPeer("holder", holder.descriptor());
            holder.meet(ownerTransport.localDescriptor());
            Hold hold = owner.create("holder", new int[] {1, 2}, HoldFixture.TTL);
            holder.accept(hold.grant(), fx.env.timeout());
            Thread.sleep(HoldFixture.TTL.plus(HoldFixture.TTL.dividedBy(2)).toMillis());
            owner.pollEnded(fx.breakage.ends(ends::add));
            assertTrue(ends.isEmpty() && hold.isLive(), fx.msg("the holder's renewals kept the hold past its TTL: "
                    + ends));
            long died = System.nanoTime();
            holder.kill();
            long limit = HoldFixture.TTL.plusSeconds(1).toNanos();
            while (ends.isEmpty() && System.nanoTime() - died < limit + fx.env.timeout().toNanos()) {
                owner.pollEnded(fx.breakage.ends(ends::add), 50, TimeUnit.MILLISECONDS);
            }
            long took = System.nanoTime() - died;
            assertEquals(1, ends.size(), fx.msg("one end after the holder died (" + holder.how() + "): " + ends));
            assertTrue(took <= limit, fx.msg("the hold ended " + took / 1_000_000 + " ms after the holder died ("
                    + holder.how() + "), more than its TTL of " + HoldFixture.TTL.toMillis() + " ms and a second"));
            HoldEnd.Reason why = ends.get(0).reason();
            assertTrue(why == HoldEnd.Reason.EXPIRED || why == HoldEnd.Reason.PEER_REMOVED, fx.msg("expired: " + why));
            LOG.log(System.Logger.Level.INFO, () -> fx.msg("the hold ended " + took / 1_000_000 + " ms after the holder"
                    + " died (" + holder.how() + "), its TTL " + HoldFixture.TTL.toMillis() + " ms"));
            ends.clear();
            owner.pollEnded(fx.breakage.ends(ends::add), fx.env.quiet().toMillis(), TimeUnit.MILLISECONDS);
            assertTrue(ends.isEmpty(), fx.msg("told once: " + ends));
        }
    }
}
