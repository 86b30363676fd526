package io.blockxfer.tck.holds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.holds.Hold;
import io.blockxfer.holds.HoldEnd;
import io.blockxfer.holds.HoldMessage;
import io.blockxfer.holds.Lease;
import io.blockxfer.holds.LeaseException;
import io.blockxfer.transport.DataTransport;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * H10-H14: how holds end. Each hold ends once, for one reason, and nothing a holder, another peer
 * or a bad argument does changes that.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class EndRules extends HoldRuleGroup {

    EndRules(HoldConformanceSuite suite) {
        super(suite);
    }

    @HoldRuleTest(HoldRules.H10)
    final void aHoldEndsOnceAndCannotBeRenewedOrReleasedAgain() throws Exception {
        HoldFixture fx = pair();
        Hold released = fx.hold(7);
        Lease lease = fx.confirmed(released);
        assertTrue(lease.release(), fx.msg("the first release releases"));
        assertFalse(lease.release(), fx.msg("a second release does nothing"));
        assertFalse(lease.abandon(), fx.msg("an abandon after the release does nothing"));
        Hold expiring = fx.hold(8);
        Hold cancelled = fx.hold(9);
        assertTrue(cancelled.cancel(), fx.msg("the cancel cancels"));
        fx.exchangeUntil("the release to reach the owner", () -> !released.isLive());
        fx.ownerClock.advance(HoldFixture.TTL);
        fx.owner().tick();
        List<HoldEnd> ends = fx.ends();
        Set<Long> ids = new HashSet<>();
        for (HoldEnd e : ends) {
            assertTrue(ids.add(e.holdId()), fx.msg("hold " + Long.toHexString(e.holdId()) + " was reported ended twice: "
                    + ends));
        }
        assertEquals(Set.of(released.id(), expiring.id(), cancelled.id()), ids, fx.msg("each of three holds ended: "
                + ends));
        long refused = fx.owner().stats().renewalsRefused();
        DataTransport h = fx.holderTransport();
        long delivered = fx.ownerDelivered();
        h.sendNotification("owner", HoldMessage.release(true, released.id()).encode());
        h.sendNotification("owner", HoldMessage.renew(1_000_000, released.id(), expiring.id()).encode());
        fx.exchangeUntil("the forged messages to reach the owner", () -> fx.ownerDelivered() >= delivered + 2);
        fx.ownerClock.advance(HoldFixture.TTL.multipliedBy(2));
        fx.assertNoEnds("a forged late release or renewal ended or revived a hold");
        assertEquals(refused + 3, fx.owner().stats().renewalsRefused(), fx.msg("the forged messages were refused and"
                + " counted: " + fx.owner().stats()));
        assertFalse(released.cancel() || expiring.cancel(), fx.msg("an ended hold cannot be cancelled"));
        assertEquals(3, fx.owner().stats().ended(), fx.msg("three ends in all: " + fx.owner().stats()));
    }

    @HoldRuleTest(HoldRules.H11)
    final void anOwnerThatClosesEndsEveryLiveHoldOnce() throws Exception {
        HoldFixture fx = pair();
        Hold a = fx.hold(1);
        Hold b = fx.hold(2);
        Hold c = fx.hold(3);
        Lease la = fx.confirmed(a);
        fx.confirmed(b);
        Lease lc = fx.confirmed(c);
        lc.release();
        assertEquals(List.of(c.id()), fx.awaitEnds(1).stream().map(HoldEnd::holdId).toList(),
                fx.msg("the released hold ended first"));
        fx.owner().close();
        fx.owner().close();
        List<HoldEnd> ends = fx.ends();
        assertEquals(Set.of(a.id(), b.id()), Set.copyOf(ends.stream().map(HoldEnd::holdId).toList()),
                fx.msg("close ended the two live holds: " + ends));
        assertEquals(2, ends.size(), fx.msg("each once: " + ends));
        assertTrue(ends.stream().allMatch(e -> e.reason() == HoldEnd.Reason.CLOSED), fx.msg("closed: " + ends));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> fx.owner().create("holder",
                new int[] {4}, HoldFixture.TTL), fx.msg("no hold after close"));
        assertTrue(String.valueOf(e.getMessage()).contains("closed"), fx.msg("the refusal says why: " + e.getMessage()));
        fx.exchangeUntil("the owner's close to reach the holder", () -> la.status() == Lease.Status.ENDED);
        LeaseException le = fx.leaseFailure(la.read(new int[] {8}, new int[] {1}), "a read after the owner closed");
        assertEquals(Optional.of(Lease.EndReason.ENDED_BY_OWNER), le.endReason(), fx.msg("the holder was told: " + le));
        assertTrue(fx.ends().isEmpty(), fx.msg("nothing ends after close"));
    }

    @HoldRuleTest(HoldRules.H12)
    final void aRemovedPeersHoldsEndAtTheNextTick() throws Exception {
        HoldFixture fx = pair();
        DataTransport other = fx.open("other", HoldFixture.HOLDER);
        fx.ownerTransport().addPeer("other", other.localDescriptor());
        Hold gone = fx.hold(1, 2);
        Hold stays = fx.owner().create("other", new int[] {3}, HoldFixture.TTL);
        fx.assertNoEnds("nothing ends while both peers are registered");
        assertTrue(fx.ownerTransport().removePeer("holder"), fx.msg("the holder was registered"));
        fx.owner().tick();
        List<HoldEnd> ends = fx.ends();
        assertEquals(1, ends.size(), fx.msg("the removed peer's hold ended at the next tick: " + ends));
        assertEquals(gone.id(), ends.get(0).holdId(), fx.msg("its own hold"));
        assertEquals(HoldEnd.Reason.PEER_REMOVED, ends.get(0).reason(), fx.msg("peer removed"));
        assertTrue(stays.isLive(), fx.msg("another peer's hold stays"));
        fx.assertNoEnds("a hold ends once");
    }

    @HoldRuleTest(HoldRules.H13)
    final void anotherPeerCannotReleaseOrRenewAHold() throws Exception {
        HoldFixture fx = pair();
        DataTransport intruder = fx.open("intruder", HoldFixture.HOLDER);
        fx.ownerTransport().addPeer("intruder", intruder.localDescriptor());
        intruder.addPeer("owner", fx.ownerTransport().localDescriptor());
        Hold hold = fx.hold(5);
        long refused = fx.owner().stats().renewalsRefused();
        long delivered = fx.ownerDelivered();
        intruder.sendNotification("owner", HoldMessage.release(true, hold.id()).encode());
        fx.exchangeUntil("the intruder's release to reach the owner", () -> fx.ownerDelivered() > delivered);
        fx.ownerClock.advance(HoldFixture.TTL.dividedBy(2));
        intruder.sendNotification("owner", HoldMessage.renew(1, hold.id()).encode());
        fx.exchangeUntil("the intruder's renewal to reach the owner", () -> fx.ownerDelivered() > delivered + 1);
        assertTrue(hold.isLive(), fx.msg("another peer's release ended the hold: " + hold));
        assertEquals(refused + 2, fx.owner().stats().renewalsRefused(), fx.msg("both messages refused and counted: "
                + fx.owner().stats()));
        fx.ownerClock.advance(HoldFixture.TTL.dividedBy(2));
        fx.owner().tick();
        assertEquals(List.of(HoldEnd.Reason.EXPIRED), fx.ends().stream().map(HoldEnd::reason).toList(),
                fx.msg("the hold expired at its TTL: another peer's renewal did not count"));
    }

    @HoldRuleTest(HoldRules.H14)
    final void badArgumentsAreRefusedByNameAndChangeNothing() throws Exception {
        HoldFixture fx = pair();
        int n = HoldFixture.BLOCKS;
        refused(fx, "not a registered peer", () -> fx.owner().create("nobody", new int[] {1}, HoldFixture.TTL));
        refused(fx, "1 to", () -> fx.owner().create("holder", new int[0], HoldFixture.TTL));
        refused(fx, "outside the region", () -> fx.owner().create("holder", new int[] {n}, HoldFixture.TTL));
        refused(fx, "outside the region", () -> fx.owner().create("holder", new int[] {-1}, HoldFixture.TTL));
        refused(fx, "appears twice", () -> fx.owner().create("holder", new int[] {2, 2}, HoldFixture.TTL));
        refused(fx, "TTL", () -> fx.owner().create("holder", new int[] {2}, Duration.ofMillis(99)));
        refused(fx, "TTL", () -> fx.owner().create("holder", new int[] {2}, Duration.ofHours(2)));
        refused(fx, "lifetime", () -> fx.owner().create("holder", new int[] {2}, HoldFixture.TTL,
                HoldFixture.TTL.minus(HoldFixture.MS)));
        assertEquals(0, fx.owner().stats().created(), fx.msg("nothing was created: " + fx.owner().stats()));
        Hold hold = fx.hold(2);
        refused(fx, "not a registered peer", () -> fx.holder().accept("nobody", hold.grant()));
        Lease lease = fx.holder().accept("owner", hold.grant());
        refused(fx, "accepted already", () -> fx.holder().accept("owner", hold.grant()));
        refusedTransfer(fx, "not one of hold", () -> lease.read(new int[] {0}, new int[] {3}));
        refusedTransfer(fx, "as many local as remote", () -> lease.read(new int[] {0, 1}, new int[] {2}));
        refusedTransfer(fx, "local block", () -> lease.read(new int[] {n}, new int[] {2}));
        assertEquals(1, fx.holder().stats().accepted(), fx.msg("one lease: " + fx.holder().stats()));
        fx.exchangeUntil("the owner's first answer", () -> lease.status() != Lease.Status.PENDING);
        assertEquals(Lease.Status.CONFIRMED, lease.status(), fx.msg("the lease is untouched by the refused calls"));
        fx.assertNoEnds("a refused call ended a hold");
    }

    private static void refusedTransfer(HoldFixture fx, String says, Supplier<CompletableFuture<Void>> call) {
        refused(fx, says, () -> call.get().isDone());
    }

    private static void refused(HoldFixture fx, String says, Supplier<?> call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::get,
                fx.msg("refused: " + says));
        assertTrue(String.valueOf(e.getMessage()).contains(says), fx.msg("the refusal names the problem ('" + says
                + "'): " + e.getMessage()));
    }
}
