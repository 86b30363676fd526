package io.blockxfer.holds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the holds kit's rules (io.blockxfer.tck.holds, run on loopback by the kit's module) leave to
 * this module: a read before the owner's first answer, a burst of accepts answered late, a
 * cancelled hold whose holder is silent, a lifetime limit. Manual clocks: time moves only when the test moves it.
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
    void aBurstOfAcceptsIsConfirmedByTheOwnersFirstAnswersAlone() throws Exception {
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            leases.add(p.holder.accept("owner", p.owner.create("holder", new int[] {i % Pair.BLOCKS}, Pair.TTL)
                    .grant()));
        }
        p.exchange(); // the owner answers the hundred first renewals only now, with no tick in between
        assertTrue(leases.stream().allMatch(l -> l.status() == Lease.Status.CONFIRMED),
                "each answer is measured from its own lease's sending, however many rounds went out since");
        assertEquals(100, p.holder.stats().renewalsConfirmed());
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

}
