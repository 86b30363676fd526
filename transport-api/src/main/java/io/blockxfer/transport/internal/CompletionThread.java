package io.blockxfer.transport.internal;

import static io.blockxfer.transport.internal.TransportLog.LOG;

import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * The transport's one thread that finds completions nobody polls for, started on first need and
 * stopped by close. It works only while it is needed, and parks otherwise:
 * <ul>
 *   <li>when the engine does not fire the completion signal and callers are parked in a wait, it
 *       is the status thread: it drives the engine and reads transfer states with an adaptive
 *       back-off ({@link Backoff}), moves what ended into the peers' owed reports and signals the
 *       waiters;</li>
 *   <li>while asynchronous transfers are pending, it completes their futures: on an engine that
 *       signals, it drives the engine as a poll would and then waits for the signal like a caller
 *       (so the engine drives transfers to their end), staying so for {@link #LINGER_NANOS} after
 *       the last future, so that a stream of asynchronous submits does not start and stop it each
 *       time; otherwise it polls as the status thread does.</li>
 * </ul>
 * An asynchronous submit wakes it ({@link #wake()}), so the new transfer is driven at once.
 * It respects the engine's threading rules as polls do (each peer's transfers under the peer's
 * lock), and completes futures holding no lock, on a Java thread with no native frame below.
 *
 * <p><b>Thread safety:</b> thread-safe; {@link #wake()} and {@link #stop} from any thread.
 */
public final class CompletionThread {

    /** How long the thread keeps waiting for signals after the last pending future completed. */
    static final long LINGER_NANOS = 2_000_000;

    private final CompletionTracker completions;
    private final CompletionWaiters waiters;
    private final AsyncCompletions async;
    private final boolean engineSignals;
    private final long recheckNanos;
    private final String name;
    private final Object startLock = new Object();
    private volatile @Nullable Thread thread;
    private volatile boolean stopped;
    /** Set by {@link #wake()}: something new to look at, so the back-off starts over. */
    private volatile boolean kicked;

    /**
     * @param engineSignals whether the engine fires the completion signal
     * @param recheckNanos the longest park while transfers are in flight, so that a deadline is
     *     met even when nothing signals
     * @param name the thread's name
     */
    public CompletionThread(CompletionTracker completions, CompletionWaiters waiters, AsyncCompletions async,
            boolean engineSignals, long recheckNanos, String name) {
        this.completions = completions;
        this.waiters = waiters;
        this.async = async;
        this.engineSignals = engineSignals;
        this.recheckNanos = recheckNanos;
        this.name = name;
    }

    /**
     * Starts the thread if it is not started, or makes it look now: it leaves its idle park, its
     * back-off or its wait for a signal (a wake-up that finds it running makes its next park return
     * at once, so none is lost).
     */
    public void wake() {
        Thread t = thread;
        if (t == null) {
            synchronized (startLock) {
                if (stopped || thread != null) {
                    return;
                }
                t = Thread.ofPlatform().name(name).daemon().unstarted(this::run);
                thread = t;
                t.start();
            }
            return;
        }
        kicked = true;
        LockSupport.unpark(t);
    }

    /** Stops the thread and waits (up to {@code timeoutNanos}) for it to end; idempotent. */
    public void stop(long timeoutNanos) {
        Thread t;
        synchronized (startLock) {
            stopped = true;
            t = thread;
        }
        if (t == null || t == Thread.currentThread()) {
            return;
        }
        LockSupport.unpark(t);
        try {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean pollingNeeded() {
        return !engineSignals && waiters.callers() > 0;
    }

    private boolean needed() {
        return pollingNeeded() || async.pending() > 0;
    }

    private void run() {
        try {
            Backoff backoff = new Backoff();
            CompletionScratch stats = CompletionScratch.acquire();
            try {
                while (!stopped) {
                    if (!needed()) {
                        idle();
                        backoff.reset();
                        continue;
                    }
                    if (engineSignals) {
                        awaitSignals(stats);
                        continue;
                    }
                    if (kicked) {
                        kicked = false;
                        backoff.reset();
                    }
                    if (completions.harvest(true, stats) > 0) {
                        backoff.reset();
                    } else {
                        backoff.idle();
                    }
                    stats.anyPending = false;
                }
            } finally {
                stats.release();
            }
        } catch (RuntimeException | Error e) {
            LOG.log(Level.ERROR, () -> name + " stopped on an unexpected error; waits and futures fall back to"
                    + " their own polls and deadlines: " + e);
            throw e;
        }
    }

    /**
     * Parks until needed again; a wake-up or stop ends it. A wake-up sent after the check below
     * leaves the permit that makes the park return at once.
     */
    private void idle() {
        if (!stopped && !needed()) {
            LockSupport.park(this);
        }
    }

    /**
     * The engine signals: while asynchronous transfers are pending (and {@link #LINGER_NANOS} after),
     * drives the engine as a poll would, completes the futures of what ended, and waits for the
     * signal as a caller would, or for a submit's wake-up.
     */
    private void awaitSignals(CompletionScratch stats) {
        CompletionWaiters.Waiter w = waiters.enter(false);
        try {
            long lastPending = System.nanoTime();
            while (!stopped) {
                long seen = waiters.epoch();
                kicked = false;
                stats.anyPending = false;
                completions.harvest(true, stats);
                long now = System.nanoTime();
                long park;
                if (async.pending() > 0) {
                    lastPending = now;
                    park = recheckNanos;
                    if (stats.anyPending) {
                        park = Math.min(park, stats.earliestStart + completions.transferTimeoutNanos() - now
                                + TimeUnit.MILLISECONDS.toNanos(1));
                    }
                } else {
                    park = lastPending + LINGER_NANOS - now;
                    if (park <= 0) {
                        return;
                    }
                }
                if (!kicked) {
                    waiters.park(w, seen, Math.max(park, 1));
                }
            }
        } finally {
            waiters.leave(w);
        }
    }

    /**
     * Agrona's back-off, measured here: a few rounds back to back after a completion, then parks
     * that double from 1 µs to 1 ms (a park shorter than the timer slack, about 50 µs on Linux,
     * takes that long anyway).
     *
     * <p><b>Thread safety:</b> confined to the completion thread.
     */
    static final class Backoff {
        /** Rounds back to back after a completion before the first park. */
        static final int SPINS = 10;
        static final long MIN_PARK_NANOS = 1_000;
        static final long MAX_PARK_NANOS = 1_000_000;

        private int spins;
        private long parkNanos = MIN_PARK_NANOS;

        void reset() {
            spins = 0;
            parkNanos = MIN_PARK_NANOS;
        }

        void idle() {
            if (spins < SPINS) {
                spins++;
                Thread.onSpinWait();
                return;
            }
            LockSupport.parkNanos(this, parkNanos);
            parkNanos = Math.min(parkNanos * 2, MAX_PARK_NANOS);
        }
    }
}
