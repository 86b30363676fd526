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
 *   <li>while it attends to futures ({@link #wake()}: an asynchronous submit of a transport whose
 *       futures were lately left to it, a dependent added to a future still pending after the
 *       adding thread's first look ({@link FutureJoins#dependentAdded}), a thread that
 *       stopped blocking on a future still pending), it completes their futures: on an engine
 *       that signals, it drives the engine as a poll would and then waits for the signal like a
 *       caller (so the engine drives transfers to their end), staying so for
 *       {@link #LINGER_NANOS} after the last future, so that a stream of asynchronous submits does
 *       not start and stop it each time; otherwise it polls as the status thread does. It stops
 *       attending as soon as every pending future has a thread blocked on it (which completes it
 *       itself, see {@link FutureJoins}), unless futures are lately left to it;</li>
 *   <li>while futures are pending or submitted, and {@link #WATCH_LINGER_NANOS} after, it
 *       watches: it looks every watch period, and attends when some pending future has had no
 *       thread blocked on it for a moment ({@link #OBSERVE_NANOS}), which also makes later submits
 *       wake it at once. Each look that finds nothing to take doubles the period, up to
 *       {@link #CALM_WATCH_NANOS} once it has taken nothing over for {@link #CALM_NANOS} (or ever),
 *       so that a stream of joined futures costs a look every few tens of milliseconds; for
 *       {@link #CALM_NANOS} after a future it took over the period starts at {@link #WATCH_NANOS}
 *       after each wake-up or take-over and stops doubling at {@link #MAX_WATCH_NANOS}. A joined
 *       future thus costs no wake-up of this thread, and a future nobody joins nor gives a
 *       dependent ({@code allOf}, a loop on {@code isDone}) completes within a watch period even
 *       when the transport's futures are mostly joined.</li>
 * </ul>
 * It respects the engine's threading rules as polls do (each peer's transfers under the peer's
 * lock), and completes futures holding no lock, on a Java thread with no native frame below.
 *
 * <p><b>Thread safety:</b> thread-safe; {@link #wake()}, {@link #watch()} and {@link #stop} from
 * any thread.
 */
public final class CompletionThread {

    /** How long the thread keeps waiting for signals after the last pending future completed. */
    static final long LINGER_NANOS = 2_000_000;
    /** How often a watching thread looks for futures nobody blocks on, after a wake-up or a take-over. */
    static final long WATCH_NANOS = 1_000_000;
    /** The longest watch period while the thread took a future over in the last {@link #CALM_NANOS}. */
    static final long MAX_WATCH_NANOS = 8_000_000;
    /**
     * The longest watch period once the thread has taken nothing over for {@link #CALM_NANOS}: on
     * this scale a stream of joined futures costs it a few wake-ups a second, where each costs
     * tens of microseconds of CPU after a long park.
     */
    static final long CALM_WATCH_NANOS = 64_000_000;
    /** How long after a take-over the watch stays close ({@link #MAX_WATCH_NANOS}). */
    static final long CALM_NANOS = 10_000_000_000L;
    /** How long the thread keeps watching after the last pending future completed. */
    static final long WATCH_LINGER_NANOS = 20_000_000;
    /**
     * How long a future must stay without a thread blocked on it before a watching thread takes
     * it over: more than the moment between a submit's return and the join that follows it (the
     * submit itself counts as attending its future, however long the backend takes).
     */
    static final long OBSERVE_NANOS = 5_000;

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
    /** Set by {@link #wake()}: pending futures may have nobody but this thread to complete them. */
    private volatile boolean attending;
    /** The thread is parked with nothing to watch: {@link #watch()} must unpark it. */
    private volatile boolean idle;
    /** Set by {@link #watch()}: a submit since the last look, so the watch goes on. */
    private volatile boolean submitted;
    /**
     * When the watch turns calm: {@link #CALM_NANOS} after the last future the thread took over,
     * or its creation when it took none (confined to the thread).
     */
    private long calmFrom = System.nanoTime();
    /** When a pending future was last seen (confined to the thread). */
    private long lastPending;
    /** The current watch period (confined to the thread). */
    private long watchNanos = WATCH_NANOS;

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
     * Starts the thread if it is not started, and makes it attend to futures and look now: it
     * leaves its idle park, its watch, its back-off or its wait for a signal (a wake-up that finds
     * it running makes its next park return at once, so none is lost). A wake-up that finds the
     * last one not yet taken (the thread clears it before it looks) unparks nothing again.
     */
    public void wake() {
        if (kicked) {
            return;
        }
        kicked = true;
        attending = true;
        Thread t = thread;
        if (t == null) {
            start();
            return;
        }
        LockSupport.unpark(t);
    }

    /**
     * Makes sure the thread at least watches the pending futures: starts it, or unparks it if it
     * is idle; costs a volatile read when it already runs.
     */
    public void watch() {
        if (!submitted) {
            submitted = true;
        }
        Thread t = thread;
        if (t == null) {
            start();
        } else if (idle) {
            LockSupport.unpark(t);
        }
    }

    private void start() {
        synchronized (startLock) {
            if (stopped || thread != null) {
                return;
            }
            Thread t = Thread.ofPlatform().name(name).daemon().unstarted(this::run);
            thread = t;
            t.start();
        }
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

    private void run() {
        try {
            Backoff backoff = new Backoff();
            CompletionScratch stats = CompletionScratch.acquire();
            lastPending = System.nanoTime();
            try {
                while (!stopped) {
                    if (pollingNeeded() || (attending && !engineSignals)) {
                        pollOnce(backoff, stats);
                    } else if (attending) {
                        awaitSignals(stats);
                    } else {
                        backoff.reset();
                        if (async.pending() > 0 || System.nanoTime() - lastPending < WATCH_LINGER_NANOS) {
                            watchOnce();
                        } else {
                            idle();
                        }
                    }
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
     * leaves the permit that makes the park return at once, and a submit that finds the thread
     * not yet idle counted its future before this check, which sees it.
     */
    private void idle() {
        idle = true;
        try {
            if (!stopped && !pollingNeeded() && !attending && async.pending() == 0) {
                LockSupport.park(this);
            }
        } finally {
            idle = false;
        }
        long now = System.nanoTime();
        lastPending = now; // whatever woke it, watch a while before idling again
        // closely, unless it is a submit's watch and nothing was taken over lately
        watchNanos = attending || !calm(now) ? WATCH_NANOS : CALM_WATCH_NANOS;
    }

    /**
     * One watch period: parks for the period (a wake-up ends it), then attends if a pending
     * future stays without a thread blocked on it; that future was left to this thread, so later
     * submits wake it at once again. A look that finds nothing to take doubles the period.
     */
    private void watchOnce() {
        LockSupport.parkNanos(this, watchNanos);
        if (attending) {
            watchNanos = WATCH_NANOS; // woken to attend: watch closely again afterwards
            return;
        }
        long now = System.nanoTime();
        if (submitted) {
            submitted = false;
            lastPending = now; // a stream of submits keeps it watching, rather than idle and woken each time
        }
        if (async.pending() > 0) {
            lastPending = now;
            if (!stopped && unattendedFor(OBSERVE_NANOS)) {
                async.leftToTheCompletionThread();
                attending = true;
                calmFrom = now + CALM_NANOS;
                watchNanos = WATCH_NANOS;
                return;
            }
        }
        watchNanos = Math.min(watchNanos * 2, calm(now) ? CALM_WATCH_NANOS : MAX_WATCH_NANOS);
    }

    /** Whether the thread has taken no future over for {@link #CALM_NANOS}, or never has. */
    private boolean calm(long now) {
        return now - calmFrom >= 0;
    }

    /** Whether some pending future stays without a thread blocked on it for {@code nanos}. */
    private boolean unattendedFor(long nanos) {
        long end = System.nanoTime() + nanos;
        while (async.unattended()) {
            if (System.nanoTime() - end >= 0) {
                return true;
            }
            Thread.onSpinWait();
        }
        return false;
    }

    /**
     * Whether to go on attending: while a pending future may need this thread (every pending one,
     * when futures are lately left to it; one without a thread blocked on it, otherwise), and for
     * {@code lingerNanos} after the last, when futures are lately left to it.
     */
    private boolean stillAttending(long now, long lingerNanos) {
        if (async.pending() > 0) {
            lastPending = now;
            return async.wakeAtSubmit() || unattendedFor(OBSERVE_NANOS);
        }
        return async.wakeAtSubmit() && now - lastPending < lingerNanos;
    }

    /** Stops attending, unless a wake-up came meanwhile (it set the flag before this cleared it). */
    private void stopAttending() {
        attending = false;
        if (kicked) {
            attending = true;
        }
    }

    /** The engine does not signal: one round of the status thread's back-off polling. */
    private void pollOnce(Backoff backoff, CompletionScratch stats) {
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
        if (attending && !stillAttending(System.nanoTime(), 0)) {
            stopAttending();
        }
    }

    /**
     * The engine signals: while attending (and {@link #LINGER_NANOS} after, when futures are
     * lately left to it), drives the engine as a poll would, completes the futures of what ended,
     * and waits for the signal as a caller would, or for a wake-up.
     */
    private void awaitSignals(CompletionScratch stats) {
        CompletionWaiters.Waiter w = waiters.enter(false);
        try {
            while (!stopped) {
                long seen = waiters.epoch();
                kicked = false;
                stats.anyPending = false;
                completions.harvest(true, stats);
                long now = System.nanoTime();
                if (!stillAttending(now, LINGER_NANOS)) {
                    stopAttending();
                    if (!attending) {
                        return;
                    }
                    continue;
                }
                long park;
                if (async.pending() > 0) {
                    park = recheckNanos;
                    if (stats.anyPending) {
                        park = Math.min(park, stats.earliestStart + completions.transferTimeoutNanos() - now
                                + TimeUnit.MILLISECONDS.toNanos(1));
                    }
                } else {
                    park = lastPending + LINGER_NANOS - now;
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
