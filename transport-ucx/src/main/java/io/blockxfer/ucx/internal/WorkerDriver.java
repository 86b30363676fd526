package io.blockxfer.ucx.internal;

import io.blockxfer.transport.internal.queue.MpscRing;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.openucx.jucx.ucp.UcpWorker;

/**
 * Who drives the UCP worker of a {@link ProgressLoop} (workers are single-threaded), how the
 * worker passes between threads, and how the loop's thread sleeps and is woken. Exactly one
 * thread at a time owns the worker, the command queue's consumer side and everything the loop's
 * parts mark "owner only"; ownership is a flag taken with a compare-and-set (which also hands the
 * owner's state over to the next owner) and given back with a volatile store. The loop's own
 * thread owns it by default. When polling threads may drive
 * ({@link io.blockxfer.transport.ProgressMode#POLLING_THREAD}), every poll tries to take the flag
 * for one round and gives up at once if another thread holds it; while polls keep coming, and
 * while a polling thread holds the worker, the loop's thread lets go of the worker and sleeps
 * ({@link WakeupGate#DORMANT}) instead of competing with them for it and for a core, and takes
 * over again when they stop, or at once for a command that waits (a peer registration). "Polls
 * keep coming" means within {@value #POLLER_GRACE_MICROS} us with nothing outstanding, but only
 * {@value #BUSY_POLLER_GRACE_MICROS} us with a transfer, a close or a command waiting, so that a
 * caller that sleeps between its polls never leaves a transfer waiting for its next poll (a READ
 * that UCX serves, a flush that waits for the peer): the loop's thread drives meanwhile, as it
 * does alone in {@link io.blockxfer.transport.ProgressMode#BACKEND_THREAD} mode. While callers
 * are parked in a wait ({@link #callersWaiting}) they do not poll, so polls do not count as
 * active then: the loop's thread drives, and the transport's completion signal, fired after each
 * round in which a transfer ended, wakes them. After its last work the loop's thread keeps
 * calling {@code progress()} for a moment (so back-to-back transfers pay no wakeup; a shorter
 * moment while callers wait, who pay a wakeup per completion anyway); then, with
 * work outstanding or not, it arms the worker and sleeps on its event file descriptor
 * ({@link WorkerEvents}, bounded by {@value WorkerEvents#WAIT_BOUND_MILLIS} ms), which a
 * completion, a peer's message, UCX's keepalive or a submitter's signal wakes; it never spins on
 * a worker that has nothing to do. Once the worker serves a peer on another host (it accepted a
 * connection through its listener; {@link #overNetwork}) that moment is short
 * ({@value #NETWORK_IDLE_SPIN_NANOS} ns, about what a wake-up costs): a target's progress over TCP
 * comes in bursts tens of microseconds apart, each the kernel's copy of a segment into its region,
 * and a thread that spun through every gap would burn a core where a wake-up per gap costs little
 * against the network. An initiator keeps its moment: it has its own submits to catch, and a short
 * one saved CPU on its 2 MiB WRITEs and cost some on 64 KiB ones. Where polls may drive it lets go
 * of the worker while it sleeps there, so that a caller's poll runs its own transfer at once, and
 * a poll that leaves work outstanding signals it. Submitters wake it through a {@link WakeupGate},
 * so no submit is missed. Every way the loop's thread sleeps and every way another thread wakes it is in this
 * class.
 *
 * <p><b>Thread safety:</b> {@link #drive} on the loop's thread only; {@link #driveFromPoller},
 * {@link #wakeFor}, {@link #nudge}, {@link #requestStop}, {@link #callersWaiting} and the getters
 * from any thread;
 * {@link #publishBusy}, {@link #keepForGood} and {@link #workerClosing} by the owner. The owner
 * flag, the time of the last poll, the busy and stop flags and the gate are shared (volatile or
 * atomic), and so is whether callers wait; {@code signal()} is called under a lock that shutdown
 * takes before destroying the worker; whether polls may still drive is owner only.
 */
final class WorkerDriver {

    /** How long the loop stays hot after its last work before it sleeps: back-to-back transfers
     *  then never pay for a wakeup. */
    static final long IDLE_SPIN_NANOS = 200_000;
    /** The same while callers are parked in a wait: each of them pays a wakeup per completion
     *  anyway, and a paced caller's next submit comes long after; a longer spin would keep the
     *  thread busy between such transfers for nothing (at 10,000 transfers/s it never slept). */
    private static final long WAITING_IDLE_SPIN_NANOS = 20_000;
    /**
     * The same, either way, once the worker serves a peer on another host: over TCP the gaps
     * between a target's bursts of progress are tens of microseconds, and spinning through them
     * cost a target 1.6-1.9x NIXL's CPU per byte of 2 MiB WRITEs (transport-ucx/README.md).
     */
    static final long NETWORK_IDLE_SPIN_NANOS = 10_000;
    /** With nothing outstanding: how long after the last poll the loop's thread keeps leaving the worker to polls. */
    static final long POLLER_GRACE_MICROS = 1_000;
    /** With work outstanding: how long after the last poll the loop's thread keeps leaving the worker to polls. */
    static final long BUSY_POLLER_GRACE_MICROS = 100;
    /** Polls note their time at most this often (a shared write per poll would cost more). */
    private static final long POLLER_NOTE_NANOS = 20_000;

    private static final VarHandle OWNER;
    private static final int FREE = 0;
    private static final int LOOP_THREAD = 1;
    private static final int POLLING_THREAD = 2;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(WorkerDriver.class, "owner", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** One round of driving the worker, run by its owner. */
    @FunctionalInterface
    interface Round {

        /**
         * Runs queued commands, progresses the worker, moves closes on, and publishes whether work
         * is outstanding ({@link WorkerDriver#publishBusy}).
         *
         * @return the events processed (commands, completions, closes)
         */
        int run();
    }

    private final Thread thread;
    private final MpscRing<LoopCommand> commands;
    private final Round round;
    private final boolean pollersDrive;
    private final long pollerGraceNanos;
    private final long busyPollerGraceNanos;
    private final WakeupGate gate = new WakeupGate();
    private final WorkerEvents events;
    /** Who drives the worker now: {@link #FREE}, {@link #LOOP_THREAD} or {@link #POLLING_THREAD}; through OWNER. */
    @SuppressWarnings("unused") // accessed through OWNER
    private volatile int owner;
    private volatile long lastPollNanos;
    /** Whether transfers, requests or closes are outstanding: published by the owner after each round. */
    private volatile boolean busy;
    private volatile boolean stopping;
    /** Whether callers are parked in a wait: they do not poll, so the loop's thread drives. */
    private volatile boolean callersWaiting;
    /** Whether the worker ever accepted a connection through its listener (see {@link #overNetwork}). */
    private volatile boolean overNetwork;
    private final AtomicLong waits = new AtomicLong();
    private final AtomicLong pollerRounds = new AtomicLong();

    // ---- owner only
    private boolean drivingClosed;

    /**
     * Drives {@code worker} by running {@code round} on {@code thread}, and on polling threads
     * where {@code pollersDrive}; {@code commands} is the loop's queue, of which
     * this only asks whether it is empty; the loop's thread leaves the worker to polls for
     * {@code pollerGraceNanos} after the last one while nothing is outstanding.
     */
    WorkerDriver(UcpWorker worker, Thread thread, MpscRing<LoopCommand> commands, Round round,
            boolean pollersDrive, long pollerGraceNanos) {
        this.thread = thread;
        this.commands = commands;
        this.round = round;
        this.pollersDrive = pollersDrive;
        this.pollerGraceNanos = pollerGraceNanos;
        this.busyPollerGraceNanos = Math.min(pollerGraceNanos, TimeUnit.MICROSECONDS.toNanos(BUSY_POLLER_GRACE_MICROS));
        this.lastPollNanos = System.nanoTime() - 2 * pollerGraceNanos;
        this.events = new WorkerEvents(worker);
    }

    // ------------------------------------------------------------------ any thread

    /**
     * A command was queued: wakes whoever must run it, through the gate. Transfers are left to an
     * active polling thread; other commands always wake the loop's thread.
     */
    void wakeFor(LoopCommand command) {
        int was = gate.published();
        if (was == WakeupGate.PARKED
                || (was == WakeupGate.DORMANT && (callersWaiting || !(command instanceof UcxTransfer)))) {
            LockSupport.unpark(thread);
        } else if (was == WakeupGate.WAITING) {
            signalWorker();
        }
    }

    /** A submitter waits for room in the full queue: wakes the loop's thread however it sleeps. */
    void nudge() {
        LockSupport.unpark(thread);
        if (gate.state() == WakeupGate.WAITING) {
            signalWorker();
        }
    }

    private void signalWorker() {
        events.signal();
    }

    /**
     * Callers started or stopped waiting. While they wait the loop's thread drives even where
     * polls may (a waiting caller does not poll until it is woken); a nap it took while polls
     * drove ends now.
     */
    void callersWaiting(boolean waiting) {
        callersWaiting = waiting;
        if (waiting) {
            LockSupport.unpark(thread);
            if (gate.state() == WakeupGate.WAITING) {
                // it may sleep on a descriptor armed before a poll progressed the worker
                signalWorker();
            }
        }
    }

    /**
     * A polling thread's turn: one round of driving the worker if nobody else drives it now
     * (never waits), nothing when only the loop's thread may drive.
     *
     * @return the events processed (commands, completions, closes)
     */
    int driveFromPoller() {
        if (!pollersDrive) {
            return 0;
        }
        long now = System.nanoTime();
        if (now - lastPollNanos > POLLER_NOTE_NANOS) {
            lastPollNanos = now;
        }
        if (!OWNER.compareAndSet(this, FREE, POLLING_THREAD)) {
            if (!callersWaiting && gate.state() == WakeupGate.WAITING) {
                // the loop's thread is about to sleep holding the worker: wake it, it will leave
                // it to us (not while callers wait: then it drives, and a signal costs it a round)
                signalWorker();
            }
            return 0;
        }
        try {
            if (drivingClosed) {
                return 0;
            }
            boolean wasBusy = busy;
            int work = round.run();
            if (work > 0) {
                pollerRounds.incrementAndGet();
            }
            if (!wasBusy && busy) {
                // work outlives this round: the loop's thread, maybe napping for the long grace
                // (the gate cannot tell: a submit since its nap shows as NOTIFIED), naps shorter
                // from now on, so it steps in if this caller does not poll again soon
                LockSupport.unpark(thread);
            }
            if (busy && gate.state() == WakeupGate.WAITING) {
                // the loop's thread sleeps on a descriptor armed before this round progressed the
                // worker: wake it, so that it arms again or steps in if this caller stops polling
                signalWorker();
            }
            return work;
        } finally {
            disown();
        }
    }

    /** Ends driving: the loop's thread leaves its loop, woken wherever it sleeps. */
    void requestStop() {
        stopping = true;
        LockSupport.unpark(thread);
        signalWorker();
    }

    /** Whether the loop is stopping (or stopped): it takes no more commands. */
    boolean stopping() {
        return stopping;
    }

    // ------------------------------------------------------------------ the loop's thread

    /** The loop of the loop's thread, until stopped; returns whether it ends owning the worker. */
    boolean drive() {
        boolean owned = false;
        long lastWork = System.nanoTime();
        while (!stopping) {
            if (pollersActive()) {
                // polls drive: stay out of their way, but run commands nobody else runs, and
                // look again soon while work is outstanding
                if (owned) {
                    disown();
                    owned = false;
                }
                napWhilePollsDrive();
                if (!commands.isEmpty() && tryOwn()) {
                    try {
                        if (!drivingClosed) {
                            round.run();
                        }
                    } finally {
                        disown();
                    }
                }
                lastWork = System.nanoTime();
                continue;
            }
            if (!owned) {
                if (!tryOwn()) {
                    Thread.onSpinWait();
                    continue;
                }
                owned = true;
            }
            int work = round.run();
            if (work > 0) {
                lastWork = System.nanoTime();
            } else if (System.nanoTime() - lastWork < idleSpinNanos()) {
                Thread.onSpinWait();
            } else {
                owned = awaitEvents();
            }
        }
        return owned;
    }

    /** How long the loop's thread stays hot after its last work now. */
    long idleSpinNanos() {
        if (overNetwork) {
            return NETWORK_IDLE_SPIN_NANOS;
        }
        return callersWaiting ? WAITING_IDLE_SPIN_NANOS : IDLE_SPIN_NANOS;
    }

    /**
     * The worker serves a peer on another host (its listener accepted a connection): from now on,
     * for the worker's life, the loop's thread stays hot only {@value #NETWORK_IDLE_SPIN_NANOS} ns
     * after its last work. Any thread.
     */
    void overNetwork() {
        if (!overNetwork) {
            overNetwork = true;
        }
    }

    /** Polls drive: sleeps for the grace, unless a submit came; nobody needs to wake it. */
    private void napWhilePollsDrive() {
        if (gate.maySleep(WakeupGate.DORMANT) && !stopping) {
            LockSupport.parkNanos(graceNanos());
        }
        gate.awake();
    }

    /**
     * The worker had nothing to do for a while (with or without work outstanding): arms it and
     * sleeps on its event descriptor until an event, a submitter's signal or the bound; does not
     * sleep if a submit came or the worker has events to progress first (arm refused). Where polls
     * may drive, it lets go of the worker while it sleeps, so that a caller's poll runs its own
     * transfer at once instead of waking this thread to run it; a poll that leaves work behind
     * signals it ({@link #driveFromPoller}).
     *
     * @return whether the thread still owns the worker
     */
    private boolean awaitEvents() {
        boolean owned = true;
        if (gate.maySleep(WakeupGate.WAITING) && commands.isEmpty() && !stopping && events.arm()) {
            waits.incrementAndGet();
            if (pollersDrive) {
                disown();
                owned = false;
            }
            events.await(WorkerEvents.WAIT_BOUND_MILLIS);
        }
        gate.awake();
        return owned;
    }

    /** The loop's thread takes the worker if nobody drives it. */
    private boolean tryOwn() {
        return OWNER.compareAndSet(this, FREE, LOOP_THREAD);
    }

    private void disown() {
        OWNER.setVolatile(this, FREE);
    }

    /**
     * Whether polls drive: a polling thread holds the worker now (a round that copies many blocks
     * to a mapped peer lasts a millisecond and more), or one came within the grace that fits
     * whether work is outstanding. The loop's thread then sleeps instead of spinning for the
     * worker against the very thread that moves the bytes.
     */
    private boolean pollersActive() {
        return pollersDrive && !callersWaiting && ((int) OWNER.getVolatile(this) == POLLING_THREAD
                || System.nanoTime() - lastPollNanos < graceNanos());
    }

    private long graceNanos() {
        return busy || !commands.isEmpty() ? busyPollerGraceNanos : pollerGraceNanos;
    }

    // ------------------------------------------------------------------ the owner

    /** After a round: whether transfers, requests or closes are still outstanding. */
    void publishBusy(boolean nowBusy) {
        if (nowBusy != busy) {
            busy = nowBusy;
        }
    }

    /**
     * The loop's thread left its loop ({@code owned}: holding the worker): it takes the worker,
     * which polling threads hold for one round at most, and never gives it back; polls no longer
     * drive.
     */
    void keepForGood(boolean owned) {
        stopping = true;
        if (!owned) {
            while (!tryOwn()) {
                LockSupport.parkNanos(10_000);
            }
        }
        drivingClosed = true; // never released again: polls no longer drive
    }

    /** The worker is about to be destroyed: no submitter signals it from now on. */
    void workerClosing() {
        events.closing();
    }

    /** The state of the sleep handshake (for tests). */
    int gateState() {
        return gate.state();
    }

    /** How often the loop's thread slept on the worker's event descriptor (for tests). */
    long waits() {
        return waits.get();
    }

    /** How many rounds polling threads drove that did some work (for tests). */
    long pollerRounds() {
        return pollerRounds.get();
    }

    /** Whether polls may drive the worker. */
    boolean pollersDrive() {
        return pollersDrive;
    }
}
