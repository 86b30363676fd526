package io.blockxfer.transport.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.TransferFailedException;
import io.blockxfer.transport.TransferFuture;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The queue of outcomes on their way to their futures: each outcome completes its future once and
 * is counted once, and a thread whose drain returns finds every outcome queued before it complete,
 * even while another thread is completing one of them.
 */
class AsyncCompletionsTest {

    private static final AtomicLong IDS = new AtomicLong();

    private static TransferFuture future() {
        return new TransferFuture(IDS.incrementAndGet(), "a", id -> { });
    }

    @Test
    void eachOutcomeCompletesItsFutureTheWayItEnded() throws Exception {
        AsyncCompletions async = new AsyncCompletions("test transport");
        TransferFuture done = future();
        TransferFuture failed = future();
        TransferFuture cancelled = future();
        TransferFuture closed = future();
        for (int i = 0; i < 4; i++) {
            async.submitted();
        }
        async.ended(done, true, null);
        async.ended(failed, false, "the peer went away");
        async.cancelled(cancelled);
        async.closed(closed);
        assertFalse(done.isDone(), "a queued outcome waits for a drain");
        assertEquals(4, async.pending());

        async.completeReady();

        assertEquals(0, async.pending(), "every outcome is counted once");
        done.get(0, TimeUnit.SECONDS);
        assertTrue(cause(failed) instanceof TransferFailedException tf && tf.getMessage().contains("the peer went away"),
                "a failed transfer's future fails with its reason");
        assertTrue(cause(cancelled) instanceof CancellationException || cancelled.isCancelled(),
                "a cancelled transfer's future is cancelled");
        assertTrue(cause(closed) instanceof IllegalStateException ise && ise.getMessage().contains("test transport"),
                "a future of a closed transport names it");
    }

    @Test
    void aSecondDrainerIsNotHeldUpByADependentThatBlocks() throws Exception {
        AsyncCompletions async = new AsyncCompletions("test transport");
        TransferFuture slow = future();
        TransferFuture next = future();
        CountDownLatch inDependent = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> dependent = slow.thenRun(() -> {
            inDependent.countDown();
            awaitQuietly(release);
        });
        async.submitted();
        async.submitted();
        async.ended(slow, true, null);
        async.ended(next, true, null);
        Thread first = Thread.ofPlatform().start(async::completeReady);
        try {
            assertTrue(inDependent.await(20, TimeUnit.SECONDS), "the first drainer runs the blocking dependent");

            async.completeReady();

            assertTrue(slow.isDone() && next.isDone(), "the second drainer returns with every queued future done");
            assertEquals(0, async.pending(), "both outcomes are counted, once each");
        } finally {
            release.countDown();
            first.join(TimeUnit.SECONDS.toMillis(20));
        }
        assertFalse(first.isAlive(), "the first drainer finished once its dependent did");
        assertTrue(dependent.isDone(), "the blocking dependent ran to its end");
        assertEquals(0, async.pending(), "no outcome is counted twice");
    }

    @Test
    void aDependentMayDrainTheQueueItself() {
        AsyncCompletions async = new AsyncCompletions("test transport");
        TransferFuture outer = future();
        TransferFuture inner = future();
        AtomicInteger innerDoneInDependent = new AtomicInteger(-1);
        CompletableFuture<Void> dependent = outer.thenRun(() -> {
            async.completeReady();
            innerDoneInDependent.set(inner.isDone() ? 1 : 0);
        });
        async.submitted();
        async.submitted();
        async.ended(outer, true, null);
        async.ended(inner, true, null);

        async.completeReady();

        assertTrue(dependent.isDone(), "the dependent ran");
        assertEquals(1, innerDoneInDependent.get(), "a drain inside a dependent completes what is queued");
        assertEquals(0, async.pending());
    }

    /**
     * The race a cancel meets: the completion thread queues a transfer's outcome and drains, while
     * the cancelling thread, which learned that the transfer ended, drains too. Whichever finishes
     * first, the canceller must find the future done when its drain returns.
     */
    @Test
    void aDrainThatReturnsFindsEveryEarlierOutcomeCompleteWhileAnotherThreadDrains() throws Exception {
        AsyncCompletions async = new AsyncCompletions("test transport");
        int rounds = 100_000;
        TransferFuture[] futures = new TransferFuture[rounds];
        for (int i = 0; i < rounds; i++) {
            futures[i] = future();
        }
        AtomicInteger queued = new AtomicInteger(-1);
        AtomicReference<Throwable> completerFailed = new AtomicReference<>();
        Thread completer = Thread.ofPlatform().name("completer").start(() -> {
            try {
                for (int i = 0; i < rounds; i++) {
                    async.submitted();
                    async.ended(futures[i], true, null);
                    queued.set(i);
                    async.completeReady();
                }
            } catch (Throwable t) {
                completerFailed.set(t);
            }
        });
        int notDone = 0;
        int firstNotDone = -1;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (int i = 0; i < rounds; i++) {
            while (queued.get() < i) {
                // read again after finding the completer gone: it may have queued round i and ended
                // after the read above (a descheduled main thread, on a busy host)
                if ((!completer.isAlive() && queued.get() < i) || System.nanoTime() > deadline) {
                    fail("the completing thread stopped at round " + i + ": " + completerFailed.get());
                }
                Thread.onSpinWait();
            }
            async.completeReady();
            if (!futures[i].isDone()) {
                notDone++;
                firstNotDone = firstNotDone < 0 ? i : firstNotDone;
            }
        }
        completer.join(TimeUnit.SECONDS.toMillis(20));
        assertEquals(0, notDone, "drains that returned before an outcome queued earlier was complete, of " + rounds
                + " (first in round " + firstNotDone + ")");
        assertEquals(0, async.pending(), "every outcome is counted once");
    }

    private static Throwable cause(TransferFuture f) {
        try {
            f.get(0, TimeUnit.SECONDS);
            return fail("future of transfer " + f.transferId() + " completed normally");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (CancellationException e) {
            return e;
        } catch (Exception e) {
            return fail("future of transfer " + f.transferId() + " did not complete: " + e);
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
