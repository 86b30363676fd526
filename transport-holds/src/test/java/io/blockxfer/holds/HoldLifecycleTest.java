package io.blockxfer.holds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.loopback.LoopbackFaults;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A hold's life on loopback with manual clocks: how it ends, when, and what the holder's transfers
 * learn. Every bound is exact: time moves only when the test moves it.
 */
class HoldLifecycleTest {

    private static final Duration MS = Duration.ofMillis(1);
    private final Pair p = new Pair();

    @AfterEach
    void close() {
        p.close();
    }

    private Lease confirmed(Hold hold) throws InterruptedException {
        Lease lease = p.holder.accept("owner", hold.grant());
        p.exchange();
        assertEquals(Lease.Status.CONFIRMED, lease.status());
        return lease;
    }

    private static LeaseException leaseFailure(CompletableFuture<Void> f) throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof LeaseException, "a lease failure, not " + e.getCause());
        return (LeaseException) e.getCause();
    }

    @Test
    void aSilentHoldersHoldExpiresAtItsTtlNotBeforeAndOnce() throws Exception {
        Hold hold = p.owner.create("holder", new int[] {1, 2}, Pair.TTL);
        confirmed(hold);
        p.ownerClock.advance(Pair.TTL.minus(MS));
        p.owner.tick();
        assertTrue(hold.isLive(), "alive a millisecond before its TTL");
        p.ownerClock.advance(MS.multipliedBy(2));
        p.owner.tick();
        List<HoldEnd> ends = p.ends();
        assertEquals(1, ends.size());
        assertEquals(HoldEnd.Reason.EXPIRED, ends.get(0).reason());
        assertEquals(2, ends.get(0).blockCount());
        p.ownerClock.advance(Pair.TTL);
        p.owner.tick();
        assertEquals(0, p.ends().size(), "once");
    }

    @Test
    void aHolderThatRenewsKeepsItsHoldForTwentyTtlsAndReadsAtTheEnd() throws Exception {
        Pair.fill(p.ownerTransport, 3, (byte) 9);
        Hold hold = p.owner.create("holder", new int[] {3}, Pair.TTL);
        Lease lease = confirmed(hold);
        for (int i = 0; i < 80; i++) {
            p.advance(Pair.TTL.dividedBy(4));
            p.tick();
            assertTrue(hold.isLive(), "round " + i);
            assertEquals(Lease.Status.CONFIRMED, lease.status(), "round " + i);
        }
        lease.readAndRelease(new int[] {0}, new int[] {3}).get(5, TimeUnit.SECONDS);
        assertTrue(Pair.holds(p.holderTransport, 0, (byte) 9));
        assertEquals(HoldEnd.Reason.RELEASED, p.awaitEnds().get(0).reason());
        assertTrue(p.owner.stats().renewalsGranted() >= 80);
    }

    @Test
    void renewalsDelayedPastTheTtlEndTheHoldAndALaterReadFailsAtTheHolder() throws Exception {
        Hold hold = p.owner.create("holder", new int[] {4}, Pair.TTL);
        Lease lease = confirmed(hold);
        for (int i = 0; i < 4; i++) {
            p.advance(Pair.TTL.dividedBy(4));
            p.holder.tick(); // renewals sent, but the owner takes none of them yet
        }
        p.advance(MS);
        p.owner.tick();
        assertEquals(HoldEnd.Reason.EXPIRED, p.ends().get(0).reason());
        p.exchange(); // the late renewals arrive: the owner answers that the hold ended
        assertEquals(Lease.Status.ENDED, lease.status());
        LeaseException e = leaseFailure(lease.read(new int[] {0}, new int[] {4}));
        assertTrue(e.endReason().isPresent(), e.getMessage());
        assertTrue(p.owner.stats().renewalsRefused() >= 1);
    }

    @Test
    void aReadWhoseEndIsKnownAfterTheConfirmedTimeFailsThoughItsBytesMoved() throws Exception {
        Hold hold = p.owner.create("holder", new int[] {5}, Pair.TTL);
        Lease lease = confirmed(hold);
        p.holderTransport.feature(LoopbackFaults.class).orElseThrow().delayCompletions(Duration.ofMillis(300));
        CompletableFuture<Void> read = lease.read(new int[] {0}, new int[] {5});
        p.holderClock.advance(Pair.TTL.plus(MS)); // while the read is reported late, the lease runs out here
        LeaseException e = leaseFailure(read);
        assertTrue(e.getMessage().contains("reused"), e.getMessage());
        assertEquals(1, p.holder.stats().transfersRefused());
    }

    @Test
    void aReadBeforeTheOwnersFirstAnswerWaitsForItAndCountsOnlyThen() throws Exception {
        Hold hold = p.owner.create("holder", new int[] {6}, Pair.TTL);
        Lease lease = p.holder.accept("owner", hold.grant());
        assertEquals(Lease.Status.PENDING, lease.status());
        CompletableFuture<Void> read = lease.read(new int[] {0}, new int[] {6});
        Thread.sleep(100);
        assertFalse(read.isDone(), "the read ended, but no answer confirms the lease yet");
        p.exchange();
        read.get(5, TimeUnit.SECONDS);
        assertEquals(Lease.Status.CONFIRMED, lease.status());
    }

    @Test
    void aReadBeforeAnAnswerThatNeverComesFailsWhenTheLeaseLapses() throws Exception {
        Hold hold = p.owner.create("holder", new int[] {6}, Pair.TTL);
        Lease lease = p.holder.accept("owner", hold.grant());
        CompletableFuture<Void> read = lease.read(new int[] {0}, new int[] {6});
        Thread.sleep(50);
        p.holderClock.advance(Pair.TTL.plus(MS));
        p.holder.tick();
        leaseFailure(read);
        assertEquals(Optional.of(Lease.EndReason.EXPIRED), lease.endReason());
        leaseFailure(lease.read(new int[] {0}, new int[] {6}));
    }

    @Test
    void aReleasedHoldCannotBeRenewedOrReleasedAgain() throws Exception {
        Hold hold = p.owner.create("holder", new int[] {7}, Pair.TTL);
        Lease lease = confirmed(hold);
        assertTrue(lease.release());
        assertFalse(lease.release());
        assertFalse(lease.abandon());
        p.exchange();
        assertEquals(HoldEnd.Reason.RELEASED, p.ends().get(0).reason());
        long refused = p.owner.stats().renewalsRefused();
        p.holderTransport.sendNotification("owner", HoldMessage.release(true, hold.id()).encode());
        p.holderTransport.sendNotification("owner", HoldMessage.renew(99, hold.id()).encode());
        p.exchange();
        p.owner.tick();
        assertEquals(0, p.ends().size(), "no second end");
        assertEquals(refused + 2, p.owner.stats().renewalsRefused());
        assertFalse(hold.cancel(), "an ended hold cannot be cancelled");
        assertEquals(1, p.owner.stats().ended());
    }

    @Test
    void closingTheOwnerEndsEveryLiveHoldOnceAndTellsTheHolder() throws Exception {
        Hold a = p.owner.create("holder", new int[] {1}, Pair.TTL);
        Hold b = p.owner.create("holder", new int[] {2}, Pair.TTL);
        Hold c = p.owner.create("holder", new int[] {3}, Pair.TTL);
        Lease la = confirmed(a);
        confirmed(b);
        Lease lc = confirmed(c);
        lc.release();
        p.exchange();
        assertEquals(1, p.ends().size());
        p.owner.close();
        p.owner.close();
        List<HoldEnd> ends = p.ends();
        assertEquals(2, ends.size());
        assertTrue(ends.stream().allMatch(e -> e.reason() == HoldEnd.Reason.CLOSED));
        assertThrows(IllegalStateException.class, () -> p.owner.create("holder", new int[] {4}, Pair.TTL));
        p.exchange();
        assertEquals(Lease.Status.ENDED, la.status());
        assertEquals(Optional.of(Lease.EndReason.ENDED_BY_OWNER), la.endReason());
        leaseFailure(la.read(new int[] {0}, new int[] {1}));
        assertEquals(0, p.ends().size());
    }

    @Test
    void aCancelledHoldEndsOnlyWhenTheHolderLetGoAfterItsReadInFlight() throws Exception {
        Hold hold = p.owner.create("holder", new int[] {8}, Pair.TTL);
        Lease lease = confirmed(hold);
        p.holderTransport.feature(LoopbackFaults.class).orElseThrow().delayCompletions(Duration.ofMillis(300));
        CompletableFuture<Void> read = lease.read(new int[] {0}, new int[] {8});
        assertTrue(hold.cancel());
        assertFalse(hold.cancel());
        p.exchange();
        assertEquals(Lease.Status.ENDING, lease.status());
        assertEquals(Optional.of(Lease.EndReason.REVOKED), lease.endReason());
        leaseFailure(lease.read(new int[] {1}, new int[] {8}));
        assertTrue(hold.isLive(), "the holder still reads");
        read.get(5, TimeUnit.SECONDS);
        List<HoldEnd> ends = p.awaitEnds();
        assertEquals(HoldEnd.Reason.CANCELLED, ends.get(0).reason());
    }

    @Test
    void aCancelledHoldOfASilentHolderEndsAtItsDeadline() throws Exception {
        Hold hold = p.owner.create("holder", new int[] {8}, Pair.TTL);
        assertTrue(hold.cancel());
        p.ownerClock.advance(Pair.TTL.minus(MS));
        p.owner.tick();
        assertTrue(hold.isLive());
        p.ownerClock.advance(MS);
        p.owner.tick();
        assertEquals(HoldEnd.Reason.CANCELLED, p.ends().get(0).reason());
    }

    @Test
    void anotherPeerCannotReleaseOrRenewAHold() throws Exception {
        try (var intruder = Pair.open("intruder")) {
            p.ownerTransport.addPeer("intruder", intruder.localDescriptor());
            intruder.addPeer("owner", p.ownerTransport.localDescriptor());
            Hold hold = p.owner.create("holder", new int[] {9}, Pair.TTL);
            intruder.sendNotification("owner", HoldMessage.release(true, hold.id()).encode());
            intruder.sendNotification("owner", HoldMessage.renew(1, hold.id()).encode());
            p.exchange();
            assertTrue(hold.isLive());
            assertEquals(2, p.owner.stats().renewalsRefused());
            p.ownerClock.advance(Pair.TTL);
            p.owner.tick();
            assertEquals(HoldEnd.Reason.EXPIRED, p.ends().get(0).reason(), "the intruder's renewal did not count");
        }
    }

    @Test
    void aLifetimeLimitEndsAHoldWhateverItsRenewals() throws Exception {
        Hold hold = p.owner.create("holder", new int[] {10}, Pair.TTL, Pair.TTL.multipliedBy(3));
        Lease lease = confirmed(hold);
        int steps = 0;
        while (steps < 16 && hold.isLive()) {
            p.advance(Pair.TTL.dividedBy(4));
            p.tick();
            steps++;
        }
        assertEquals(12, steps, "it ended when its lifetime of three TTLs was over, not before");
        HoldEnd.Reason why = p.ends().get(0).reason();
        assertTrue(why == HoldEnd.Reason.EXPIRED || why == HoldEnd.Reason.ABANDONED, why.name());
        assertEquals(Lease.Status.ENDED, lease.status(), "the holder's confirmed time never went past the limit");
    }

    @Test
    void badArgumentsAreRefusedByNameAndCreateNothing() throws Exception {
        assertRefused("not a registered peer", () -> p.owner.create("nobody", new int[] {1}, Pair.TTL));
        assertRefused("1 to", () -> p.owner.create("holder", new int[0], Pair.TTL));
        assertRefused("outside the region", () -> p.owner.create("holder", new int[] {Pair.BLOCKS}, Pair.TTL));
        assertRefused("outside the region", () -> p.owner.create("holder", new int[] {-1}, Pair.TTL));
        assertRefused("appears twice", () -> p.owner.create("holder", new int[] {2, 2}, Pair.TTL));
        assertRefused("TTL", () -> p.owner.create("holder", new int[] {2}, Duration.ofMillis(99)));
        assertRefused("lifetime", () -> p.owner.create("holder", new int[] {2}, Pair.TTL, Pair.TTL.minus(MS)));
        assertEquals(0, p.owner.stats().created());
        Hold hold = p.owner.create("holder", new int[] {2}, Pair.TTL);
        assertRefused("not a registered peer", () -> p.holder.accept("nobody", hold.grant()));
        Lease lease = p.holder.accept("owner", hold.grant());
        assertRefused("accepted already", () -> p.holder.accept("owner", hold.grant()));
        assertRefused("not one of hold", () -> lease.read(new int[] {0}, new int[] {3}));
        assertRefused("as many local as remote", () -> lease.read(new int[] {0, 1}, new int[] {2}));
        assertRefused("local block", () -> lease.read(new int[] {Pair.BLOCKS}, new int[] {2}));
        assertEquals(Lease.Status.PENDING, lease.status(), "nothing changed");
        assertRefused("a hold message", () -> HoldGrant.decode(HoldMessage.renew(1, 1L).encode()));
    }

    private static void assertRefused(String says, Supplier<?> call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::get);
        assertTrue(e.getMessage().contains(says), e.getMessage());
    }
}
