package io.blockxfer.ucx.internal;

import io.blockxfer.transport.internal.queue.MpscRing;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;

/**
 * Drives a transport's UCP worker (workers are single-threaded): takes commands from a queue,
 * issues each transfer, progresses the worker, and ends each transfer when UCX ended its requests.
 * A transfer with a peer whose region is mapped in this process is a copy ({@link MappedCopier}),
 * done at once, with no UCX request. With any other peer a WRITE is one implicit put per run plus one
 * flush of the endpoint, and a READ one get per run; {@link RequestTracker} issues them and ends
 * the transfer when UCX ended them.
 *
 * <p><b>Who drives.</b> Exactly one thread at a time owns the worker, the command queue and
 * everything below marked "owner only"; ownership is a flag taken with a compare-and-set (which
 * also hands the owner's state over to the next owner). The loop's own thread owns it by default.
 * When polling threads may drive ({@link io.blockxfer.transport.ProgressMode#POLLING_THREAD}),
 * every poll tries to take the flag for one round (drain commands, {@code progress()}, collect
 * ended requests, finish closes) and gives up at once if another thread holds it; while polls keep
 * coming, and while a polling thread holds the worker (the flag says whose it is), the loop's
 * thread lets go of the worker and sleeps ({@link WakeupGate#DORMANT}) instead of competing with
 * them for it and for a core, and takes over again when they stop, or at once for a command
 * that waits (a peer registration). How long "polls keep coming" means depends on whether work is
 * outstanding: with nothing in flight, {@value #POLLER_GRACE_MICROS} us; with a transfer, a close
 * or a command waiting, only {@value #BUSY_POLLER_GRACE_MICROS} us, so that a caller that sleeps
 * between its polls never leaves a transfer waiting for its next poll to take the next step (a
 * READ that UCX serves, a flush that waits for the peer): the loop's thread drives while the
 * caller sleeps, as it would in {@link io.blockxfer.transport.ProgressMode#BACKEND_THREAD} mode.
 * With {@link io.blockxfer.transport.ProgressMode#BACKEND_THREAD} only the loop's thread drives.
 *
 * <p><b>Sleeping.</b> While transfers or endpoint closes are outstanding the loop's thread keeps
 * calling {@code progress()}, which is also where UCX's keepalive runs, spinning first and then
 * parking briefly; with nothing outstanding it spins a moment longer (so back-to-back transfers pay
 * no wakeup), then sleeps in {@code waitForEvents()}. Submitters wake it through a
 * {@link WakeupGate}, so no submit is missed. A full command queue slows the submitter (bounded,
 * {@value #QUEUE_FULL_WAIT_MILLIS} ms) instead of failing its transfer.
 *
 * <p><b>Failures and closes.</b> {@link PeerConnections} builds the peers' endpoints, marks a
 * failed peer, and closes endpoints only after UCX ended the requests it holds on them.
 *
 * <p><b>Shutdown.</b> The worker is destroyed only when no request of this loop is left in UCX and
 * the worker has gone quiet (flushed, and no event for a while: UCX's own replies to peers, such
 * as software-emulated read data and put acknowledgements, are then sent): destroying a worker
 * fails its queued requests, and UCX 1.18 fails its internal reply requests through a path that
 * reads an uninitialised datatype and can crash ({@code ucp_request_dt_dereg}). If that does not
 * happen within the shutdown bound the worker is left open, with its memory, and said so;
 * {@link #workerDestroyed} tells the engine.
 *
 * <p><b>Thread safety:</b> {@link #execute}, {@link #driveFromPoller} and {@link #stop} from any
 * thread; everything else by the current owner of the worker.
 */
final class ProgressLoop implements Runnable {

    private static final System.Logger LOG = System.getLogger(ProgressLoop.class.getName());
    private static final int SPINS = 20_000;
    private static final long PARK_NANOS = 50_000;
    /** How long the loop stays hot after its last work before it sleeps: back-to-back transfers
     *  then never pay for a wakeup. */
    private static final long IDLE_SPIN_NANOS = 200_000;
    private static final int DRAIN_BATCH = 1024;
    /** With nothing outstanding: how long after the last poll the loop's thread keeps leaving the worker to polls. */
    static final long POLLER_GRACE_MICROS = 1_000;
    /** With work outstanding: how long after the last poll the loop's thread keeps leaving the worker to polls. */
    static final long BUSY_POLLER_GRACE_MICROS = 100;
    /** Polls note their time at most this often (a shared write per poll would cost more). */
    private static final long POLLER_NOTE_NANOS = 20_000;
    /** How long a submitter waits for room in a full command queue before its transfer fails. */
    static final long QUEUE_FULL_WAIT_MILLIS = 5_000;
    /** How long shutdown waits for UCX to end requests and close endpoints. */
    private static final long SHUTDOWN_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** Flushes in a row with no event that make a worker safe to destroy. */
    private static final int QUIET_FLUSHES = 3;
    /** How long a worker must see no event before it is destroyed (see {@link #quiesce}). */
    private static final long QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(30);
    /** Default size of the command queue. */
    static final int QUEUE_CAPACITY = 1 << 16;

    private static final VarHandle OWNER;
    private static final int FREE = 0;
    private static final int LOOP_THREAD = 1;
    private static final int POLLING_THREAD = 2;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(ProgressLoop.class, "owner", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String name;
    private final UcpWorker worker;
    private final boolean pollersDrive;
    private final long pollerGraceNanos;
    private final long busyPollerGraceNanos;
    private final long queueFullWaitNanos;
    private final MpscRing<LoopCommand> commands;
    private final MappedCopier copier;
    private final PeerConnections peers;
    private final RequestTracker transfers;
    private final WakeupGate gate = new WakeupGate();
    private final Object rejectLock = new Object();
    private final Thread thread;
    private final Object signalLock = new Object();
    /** Who drives the worker now: {@link #FREE}, {@link #LOOP_THREAD} or {@link #POLLING_THREAD}; through OWNER. */
    @SuppressWarnings("unused") // accessed through OWNER
    private volatile int owner;
    private volatile long lastPollNanos;
    /** Whether transfers, requests or closes are outstanding: published by the owner after each round. */
    private volatile boolean busy;
    private volatile boolean stopping;
    private volatile boolean terminated;
    private volatile boolean workerDestroyed;
    private boolean workerClosed; // guarded by signalLock
    private final AtomicLong waits = new AtomicLong();
    private final AtomicLong pollerRounds = new AtomicLong();
    private final AtomicLong queueFullWaits = new AtomicLong();

    // ---- owner only
    private boolean drivingClosed;

    /**
     * A loop over {@code worker} for the region {@code local} of blocks of {@code blockLength}
     * bytes.
     */
    ProgressLoop(String name, UcpWorker worker, MemorySegment local, long blockLength, boolean pollersDrive) {
        this(name, worker, local, blockLength, pollersDrive, QUEUE_CAPACITY, QUEUE_FULL_WAIT_MILLIS,
                TimeUnit.MICROSECONDS.toNanos(POLLER_GRACE_MICROS));
    }

    /**
     * A loop with a queue of {@code queueCapacity} commands, whose submitters wait for room at most
     * {@code queueFullWaitMillis}, and whose thread leaves the worker to polls for
     * {@code pollerGraceNanos} after the last one while nothing is outstanding.
     */
    ProgressLoop(String name, UcpWorker worker, MemorySegment local, long blockLength, boolean pollersDrive,
            int queueCapacity, long queueFullWaitMillis, long pollerGraceNanos) {
        this.queueFullWaitNanos = TimeUnit.MILLISECONDS.toNanos(queueFullWaitMillis);
        this.name = name;
        this.worker = worker;
        this.pollersDrive = pollersDrive;
        this.pollerGraceNanos = pollerGraceNanos;
        this.busyPollerGraceNanos = Math.min(pollerGraceNanos, TimeUnit.MICROSECONDS.toNanos(BUSY_POLLER_GRACE_MICROS));
        this.lastPollNanos = System.nanoTime() - 2 * pollerGraceNanos;
        this.commands = new MpscRing<>(queueCapacity);
        this.copier = new MappedCopier(name, local, blockLength);
        this.peers = new PeerConnections(name, worker);
        this.transfers = new RequestTracker(name, local, blockLength, peers, copier);
        this.thread = Thread.ofPlatform().name(name).daemon().unstarted(this);
    }

    void start() {
        thread.start();
    }

    // ------------------------------------------------------------------ any thread

    /**
     * Queues a command and wakes whoever drives: transfers are left to an active polling thread,
     * other commands always wake the loop's thread. Waits (bounded) while the queue is full.
     *
     * @throws IllegalStateException if the loop stopped, or the queue stayed full too long
     */
    void execute(LoopCommand command) {
        if (stopping) {
            throw new IllegalStateException(name + " is stopped");
        }
        if (!commands.offer(command)) {
            offerWhenRoom(command);
        }
        int was = gate.published();
        if (was == WakeupGate.PARKED || (was == WakeupGate.DORMANT && !(command instanceof UcxTransfer))) {
            LockSupport.unpark(thread);
        } else if (was == WakeupGate.WAITING) {
            signalWorker();
        }
        if (terminated) {
            // nobody drives any more: reject what it left, this command included
            rejectQueued();
        }
    }

    /** Back-pressure: waits until the full queue takes {@code command}, driving it where allowed. */
    // yield is one step of the back-off between spinning and parking, for a queue that the loop's
    // thread empties within microseconds; correctness never depends on how the scheduler takes it
    @SuppressWarnings("ThreadPriorityCheck")
    private void offerWhenRoom(LoopCommand command) {
        queueFullWaits.incrementAndGet();
        long start = System.nanoTime();
        for (int round = 0; !commands.offer(command); round++) {
            if (stopping) {
                throw new IllegalStateException(name + " is stopped");
            }
            if (System.nanoTime() - start > queueFullWaitNanos) {
                throw new IllegalStateException(name + ": the command queue stayed full for "
                        + TimeUnit.NANOSECONDS.toMillis(queueFullWaitNanos) + " ms (the UCX progress thread is not"
                        + " draining it)");
            }
            if (driveFromPoller() > 0) {
                continue;
            }
            LockSupport.unpark(thread);
            if (gate.state() == WakeupGate.WAITING) {
                signalWorker();
            }
            if (round < 64) {
                Thread.onSpinWait();
            } else if (round < 128) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(Math.min(1_000_000L, 10_000L << Math.min(round - 128, 7)));
            }
        }
    }

    private void signalWorker() {
        synchronized (signalLock) {
            if (!workerClosed) {
                worker.signal();
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
            if (gate.state() == WakeupGate.WAITING) {
                // the loop's thread sleeps holding the worker: wake it, it will leave it to us
                signalWorker();
            }
            return 0;
        }
        try {
            if (drivingClosed) {
                return 0;
            }
            boolean wasBusy = busy;
            int work = round();
            if (work > 0) {
                pollerRounds.incrementAndGet();
            }
            if (!wasBusy && busy) {
                // work outlives this round: the loop's thread, maybe napping for the long grace
                // (the gate cannot tell: a submit since its nap shows as NOTIFIED), naps shorter
                // from now on, so it steps in if this caller does not poll again soon
                LockSupport.unpark(thread);
            }
            return work;
        } finally {
            disown();
        }
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
        return pollersDrive && ((int) OWNER.getVolatile(this) == POLLING_THREAD
                || System.nanoTime() - lastPollNanos < graceNanos());
    }

    private long graceNanos() {
        return busy || !commands.isEmpty() ? busyPollerGraceNanos : pollerGraceNanos;
    }

    /**
     * Stops the loop: rejects queued commands, closes every endpoint (bounded), destroys the worker
     * when nothing of it is left in UCX.
     *
     * @return whether the thread ended within {@code timeoutMillis}
     */
    boolean stop(long timeoutMillis) {
        stopping = true;
        LockSupport.unpark(thread);
        signalWorker();
        if (Thread.currentThread() == thread) {
            return false;
        }
        try {
            thread.join(timeoutMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !thread.isAlive();
    }

    // ------------------------------------------------------------------ the loop

    @Override
    public void run() {
        boolean owned = false;
        try {
            owned = loop();
        } catch (Throwable t) {
            LOG.log(Level.ERROR, name + ": the UCX progress thread failed; every transfer of this transport fails", t);
        } finally {
            stopping = true;
            try {
                if (!owned) {
                    // polling threads hold the worker for one round at most
                    while (!tryOwn()) {
                        LockSupport.parkNanos(10_000);
                    }
                }
                drivingClosed = true; // never released again: polls no longer drive
                shutdown();
            } finally {
                // after this, execute() rejects what it queued itself; what got in before is
                // rejected here
                terminated = true;
                rejectQueued();
            }
        }
    }

    /** After the loop ended: rejects what is queued; the lock makes callers one consumer at a time. */
    private void rejectQueued() {
        synchronized (rejectLock) {
            LoopCommand c;
            while ((c = commands.poll()) != null) {
                try {
                    c.reject(name + " is closed");
                } catch (RuntimeException e) {
                    LOG.log(Level.DEBUG, () -> name + ": rejecting a command failed: " + e);
                }
            }
        }
    }

    /** The loop of the loop's thread; returns whether it ends owning the worker. */
    private boolean loop() throws Exception {
        boolean owned = false;
        int idle = 0;
        long lastWork = System.nanoTime();
        while (!stopping) {
            if (pollersActive()) {
                // polls drive: stay out of their way, but run commands nobody else runs, and
                // look again soon while work is outstanding
                if (owned) {
                    disown();
                    owned = false;
                }
                if (gate.maySleep(WakeupGate.DORMANT) && !stopping) {
                    LockSupport.parkNanos(graceNanos());
                }
                gate.awake();
                if (!commands.isEmpty() && tryOwn()) {
                    try {
                        if (!drivingClosed) {
                            round();
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
            int work = round();
            if (work > 0) {
                idle = 0;
                lastWork = System.nanoTime();
            } else if (System.nanoTime() - lastWork < IDLE_SPIN_NANOS) {
                Thread.onSpinWait();
            } else if (busy) {
                if (++idle < SPINS) {
                    Thread.onSpinWait();
                } else {
                    if (gate.maySleep(WakeupGate.PARKED) && commands.isEmpty() && !stopping) {
                        LockSupport.parkNanos(PARK_NANOS);
                    }
                    gate.awake();
                }
            } else {
                idle = 0;
                if (gate.maySleep(WakeupGate.WAITING) && commands.isEmpty() && !stopping) {
                    waits.incrementAndGet();
                    worker.waitForEvents();
                }
                gate.awake();
            }
        }
        return owned;
    }

    /** One round of driving: run queued commands, progress the worker, move closes on. */
    private int round() {
        int work = drain();
        try {
            work += worker.progress();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            // JUCX declares Exception but throws only UcxException (unchecked)
            throw new IllegalStateException(name + ": UcpWorker.progress() failed", e);
        }
        work += peers.afterProgress(transfers);
        boolean nowBusy = transfers.anyInFlight() || peers.closesPending();
        if (nowBusy != busy) {
            busy = nowBusy;
        }
        return work;
    }

    private int drain() {
        int n = 0;
        LoopCommand c;
        while (n < DRAIN_BATCH && (c = commands.poll()) != null) {
            n++;
            try {
                c.run(this);
            } catch (RuntimeException | LinkageError e) {
                // one command's failure (a class that cannot load when descriptors ran out, say)
                // ends that command, not the loop
                try {
                    c.reject(name + ": running " + c.getClass().getSimpleName() + " failed: " + e);
                } catch (RuntimeException | LinkageError ignored) {
                    // nothing more to tell it
                }
            }
        }
        return n;
    }

    // ------------------------------------------------------------------ transfers

    /** Issues a transfer (see {@link RequestTracker#issue}). */
    void issue(UcxTransfer t) {
        transfers.issue(t);
    }

    // ------------------------------------------------------------------ peers

    /** Connects a peer (see {@link PeerConnections#connect}). */
    void connect(ConnectCommand c) {
        peers.connect(c);
    }

    /** Aborts a peer (see {@link PeerConnections#abort}). */
    void abort(UcxPeer p) {
        peers.abort(p);
    }

    /** Disconnects a peer (see {@link PeerConnections#disconnect}). */
    void disconnect(UcxPeer p) {
        peers.disconnect(p);
    }

    // ------------------------------------------------------------------ shutdown

    private void shutdown() {
        rejectQueued();
        boolean drained = false;
        try {
            peers.disconnectAll();
            long deadline = System.nanoTime() + SHUTDOWN_NANOS;
            while (peers.closesPending() && System.nanoTime() - deadline < 0) {
                worker.progress();
                peers.afterProgress(transfers);
            }
            if (peers.noneClosing()) {
                drained = quiesce(deadline);
            }
        } catch (Throwable t) {
            LOG.log(Level.WARNING, name + ": closing endpoints at shutdown failed", t);
        }
        // said before the loops below fail what the closing peers still hold
        String held = drained ? "" : peers.noneClosing()
                ? "the worker never went quiet: a flush or UCX's own sends to its peers did not finish"
                : "endpoints still closing: " + peers.describeClosing();
        // nobody progresses the worker any more: what it still holds never moves again
        peers.failInFlight(transfers);
        if (!drained) {
            LOG.log(Level.WARNING, "{0}: UCX still holds requests of this transport or replies to its peers after"
                    + " {1} ms ({2}); the UCP worker is left open with its memory (destroying it under them could"
                    + " crash this process)", name, TimeUnit.NANOSECONDS.toMillis(SHUTDOWN_NANOS), held);
            return;
        }
        synchronized (signalLock) {
            workerClosed = true;
        }
        try {
            worker.close();
            workerDestroyed = true;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, name + ": destroying the UCP worker failed: " + e);
        }
    }

    /**
     * Flushes and progresses the worker until it has been quiet for {@link #QUIET_NANOS}: UCX's
     * own sends (replies to peers' software-emulated reads, acknowledgements of their puts) go out
     * before the worker goes. A flush alone proves nothing here: a worker flush completes as soon
     * as its interfaces are flushed, and a reply that waits for room in a peer's full receive
     * queue sits in a pending queue that no flush covers. UCX 1.18 discards such a reply at
     * {@code ucp_worker_destroy} by reading datatype fields it never set (SIGSEGV in
     * {@code ucp_request_dt_dereg}, whenever the stale bytes happen to name an I/O vector). A
     * live peer drains its queue as soon as its thread runs, and the reply then goes out; so the
     * worker counts as quiet only after {@value #QUIET_FLUSHES} flushes in a row and a stretch of
     * {@link #QUIET_NANOS} with no event, long enough for a busy peer's thread to be scheduled.
     * The loop parks between rounds so that, on a machine with few cores, that thread gets one.
     * A peer that never stops sending keeps the worker busy until {@code deadline}; then the
     * worker is left open.
     *
     * @return whether the worker went quiet before {@code deadline}
     * @throws Exception what JUCX's progress throws
     */
    private boolean quiesce(long deadline) throws Exception {
        int quiet = 0;
        long quietSince = System.nanoTime();
        while (System.nanoTime() - deadline < 0) {
            UcpRequest flush = worker.flushNonBlocking(null);
            int events = 0;
            while (!flush.isCompleted() && System.nanoTime() - deadline < 0) {
                events += worker.progress();
            }
            events += worker.progress();
            long now = System.nanoTime();
            if (flush.isCompleted() && events == 0) {
                quiet++;
            } else {
                quiet = 0;
                quietSince = now;
            }
            if (quiet >= QUIET_FLUSHES && now - quietSince >= QUIET_NANOS) {
                return true;
            }
            LockSupport.parkNanos(PARK_NANOS);
        }
        return false;
    }

    boolean isTerminated() {
        return terminated;
    }

    /** Whether shutdown destroyed the worker (false: it was left open, and its memory must stay). */
    boolean workerDestroyed() {
        return workerDestroyed;
    }

    /** The state of the sleep handshake (for tests). */
    int gateState() {
        return gate.state();
    }

    /** The id of the loop's own thread (for tests). */
    long threadId() {
        return thread.threadId();
    }

    /** How often the loop's thread slept in {@code waitForEvents()} (for tests). */
    long waits() {
        return waits.get();
    }

    /** How many rounds polling threads drove that did some work (for tests). */
    long pollerRounds() {
        return pollerRounds.get();
    }

    /** How many submits found the command queue full and had to wait (for tests). */
    long queueFullWaits() {
        return queueFullWaits.get();
    }

    /** How many READs were copies from a peer's mapped region (for tests). */
    long mappedReads() {
        return copier.reads();
    }

    /** How many WRITEs were copies to a peer's mapped region (for tests). */
    long mappedWrites() {
        return copier.writes();
    }

    /** Whether polls may drive the worker. */
    boolean pollersDrive() {
        return pollersDrive;
    }

    @Override
    public String toString() {
        return name;
    }
}
