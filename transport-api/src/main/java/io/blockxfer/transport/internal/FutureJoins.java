package io.blockxfer.transport.internal;

import io.blockxfer.transport.TransferFuture;
import java.util.concurrent.TimeUnit;

/**
 * Threads blocked on a transfer's future ({@code get}, {@code join}), made to cost what a wait
 * costs: the blocked thread drives the engine and looks at its future's peer, back to back for
 * the wait's short spin ({@link BlockingPolls#SPIN_NANOS}), completing on its own thread the
 * futures it finds ended (its own among them), then registers as a waiting caller and parks
 * until the engine's completion signal (or the status thread's), the earliest deadline of the
 * peer's transfers, close, its interrupt, or its future's completion by another thread (the
 * future unparks it), and looks again. A thread that stops blocking on a future still pending
 * (its limit passed, it was interrupted) hands the future to the completion thread.
 *
 * <p>It also decides, at each asynchronous submit, whether to wake the completion thread at once
 * (the transport's futures were lately left to it) or only to make sure it watches (they were
 * lately joined or given dependents, so the joining thread will complete the future itself, or
 * the thread that adds a dependent will look first and wake it if needed). A thread that adds a
 * dependent to a pending future takes a first look at its peer, and wakes the completion thread
 * only if the future stays pending (see {@link CompletionThread}).
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class FutureJoins implements TransferFuture.Driver {

    private final CompletionTracker completions;
    private final CompletionWaiters waiters;
    private final AsyncCompletions async;
    private final CompletionThread completionThread;
    private final long recheckNanos;
    private final String label;

    /**
     * @param recheckNanos the longest a blocked thread parks at a time, as a wait's
     * @param label how the transport names itself in messages
     */
    public FutureJoins(CompletionTracker completions, CompletionWaiters waiters, AsyncCompletions async,
            CompletionThread completionThread, long recheckNanos, String label) {
        this.completions = completions;
        this.waiters = waiters;
        this.async = async;
        this.completionThread = completionThread;
        this.recheckNanos = recheckNanos;
        this.label = label;
    }

    /** After an asynchronous submit: wakes the completion thread, or makes sure it watches. */
    public void submitted() {
        if (async.wakeAtSubmit()) {
            completionThread.wake();
        } else {
            completionThread.watch();
        }
    }

    /**
     * A first look, as a join's, on the thread that adds the dependent: a transfer that already
     * ended completes its future here, so the dependent runs at once on this thread, with no hand-off
     * (as a dependent added to a completed {@code CompletableFuture} does); otherwise the
     * completion thread is woken to complete it. Either way the transport's futures now count as
     * taken care of by their callers: later submits only make sure the completion thread watches.
     */
    @Override
    public void dependentAdded(TransferFuture future) {
        async.dependentSeen(); // so later submits need not wake the completion thread
        CompletionScratch stats = CompletionScratch.acquire();
        try {
            look(future, stats);
        } finally {
            stats.release();
        }
        if (!future.isDone()) {
            completionThread.wake();
        }
    }

    @Override
    public void await(TransferFuture future, long nanos) throws InterruptedException {
        async.joinSeen();
        if (future.isDone()) {
            return;
        }
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before blocking on transfer " + future.transferId()
                    + " of " + label);
        }
        // counted before the first look, so that the completion thread, which takes over a
        // pending future nobody blocks on, sees this one attended from the start
        async.joinStarted();
        CompletionScratch stats = CompletionScratch.acquire();
        try {
            // the first look, before reading the clock: a transfer that ended by now costs no more
            if (!look(future, stats) || future.isDone()) {
                return;
            }
            long start = System.nanoTime();
            boolean limited = nanos < Long.MAX_VALUE / 2;
            long spinEnd = start + Math.min(BlockingPolls.SPIN_NANOS, nanos);
            while (System.nanoTime() - spinEnd < 0) {
                Thread.onSpinWait();
                if (!look(future, stats) || future.isDone()) {
                    return;
                }
            }
            if (limited && System.nanoTime() - start >= nanos) {
                return;
            }
            parkUntilDone(future, stats, limited, start + nanos);
        } finally {
            stats.release();
            async.joinEnded();
            if (!future.isDone()) {
                completionThread.wake(); // left pending (limit, interrupt): the completion thread takes it over
            }
        }
    }

    /** Registers as a waiting caller, then alternates looks and parks until the future is done. */
    private void parkUntilDone(TransferFuture future, CompletionScratch stats, boolean limited, long deadline)
            throws InterruptedException {
        CompletionWaiters.Waiter w = waiters.enter(true);
        try {
            while (true) {
                long seen = waiters.epoch();
                stats.anyPending = false;
                if (!look(future, stats) || future.isDone()) {
                    return;
                }
                long now = System.nanoTime();
                long park = recheckNanos;
                if (limited) {
                    if (deadline - now <= 0) {
                        return;
                    }
                    park = Math.min(park, deadline - now);
                }
                if (stats.anyPending) {
                    park = Math.min(park, Math.max(1, stats.earliestStart + completions.transferTimeoutNanos()
                            - now + TimeUnit.MILLISECONDS.toNanos(1)));
                }
                waiters.park(w, seen, park);
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while blocked on transfer " + future.transferId()
                            + " of " + label);
                }
            }
        } finally {
            waiters.leave(w);
        }
    }

    /** Drives the engine and harvests the future's peer; false when the transport closed. */
    private boolean look(TransferFuture future, CompletionScratch stats) {
        return completions.harvest(future.peerId(), stats);
    }
}
