package io.blockxfer.ucx.internal;

import io.blockxfer.transport.internal.queue.MpscRing;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
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
 * <p><b>Who drives.</b> {@link WorkerDriver} hands the worker between the loop's own thread and
 * polling threads, and lets the loop's thread sleep and wakes it. {@link CommandIntake} queues
 * commands, and slows submitters while the queue is full.
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
    /** How long shutdown waits for UCX to end requests and close endpoints. */
    private static final long SHUTDOWN_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** Flushes in a row with no event that make a worker safe to destroy. */
    private static final int QUIET_FLUSHES = 3;
    /** How long a worker must see no event before it is destroyed (see {@link #quiesce}). */
    private static final long QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(30);
    /** How long shutdown parks between its quiet checks (see {@link #quiesce}). */
    private static final long QUIET_PAUSE_NANOS = 50_000;

    private final String name;
    private final UcpWorker worker;
    private final CommandIntake commands;
    private final MappedCopier copier;
    private final PeerConnections peers;
    private final RequestTracker transfers;
    private final Thread thread;
    private final WorkerDriver driver;
    private volatile boolean workerDestroyed;

    /**
     * A loop over {@code worker} for the region {@code local} of blocks of {@code blockLength}
     * bytes.
     */
    ProgressLoop(String name, UcpWorker worker, MemorySegment local, long blockLength, boolean pollersDrive) {
        this(name, worker, local, blockLength, pollersDrive, CommandIntake.QUEUE_CAPACITY,
                CommandIntake.QUEUE_FULL_WAIT_MILLIS, TimeUnit.MICROSECONDS.toNanos(WorkerDriver.POLLER_GRACE_MICROS));
    }

    /**
     * A loop with a queue of {@code queueCapacity} commands, whose submitters wait for room at most
     * {@code queueFullWaitMillis}, and whose thread leaves the worker to polls for
     * {@code pollerGraceNanos} after the last one while nothing is outstanding.
     */
    ProgressLoop(String name, UcpWorker worker, MemorySegment local, long blockLength, boolean pollersDrive,
            int queueCapacity, long queueFullWaitMillis, long pollerGraceNanos) {
        this.name = name;
        this.worker = worker;
        this.copier = new MappedCopier(name, local, blockLength);
        this.peers = new PeerConnections(name, worker);
        this.transfers = new RequestTracker(name, local, blockLength, peers, copier);
        this.thread = Thread.ofPlatform().name(name).daemon().unstarted(this);
        MpscRing<LoopCommand> queue = new MpscRing<>(queueCapacity);
        this.driver = new WorkerDriver(worker, thread, queue, this::round, pollersDrive, pollerGraceNanos);
        this.commands = new CommandIntake(name, queue, queueFullWaitMillis, driver);
    }

    void start() {
        thread.start();
    }

    // ------------------------------------------------------------------ any thread

    /** Queues a command and wakes whoever drives (see {@link CommandIntake#execute}). */
    void execute(LoopCommand command) {
        commands.execute(command);
    }

    /** A polling thread's turn (see {@link WorkerDriver#driveFromPoller}). */
    int driveFromPoller() {
        return driver.driveFromPoller();
    }

    /**
     * Stops the loop: rejects queued commands, closes every endpoint (bounded), destroys the worker
     * when nothing of it is left in UCX.
     *
     * @return whether the thread ended within {@code timeoutMillis}
     */
    boolean stop(long timeoutMillis) {
        driver.requestStop();
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
            owned = driver.drive();
        } catch (Throwable t) {
            LOG.log(Level.ERROR, name + ": the UCX progress thread failed; every transfer of this transport fails", t);
        } finally {
            try {
                driver.keepForGood(owned);
                shutdown();
            } finally {
                commands.terminate();
            }
        }
    }

    /** One round of driving: run queued commands, progress the worker, move closes on. */
    private int round() {
        int work = commands.drain(this);
        try {
            work += worker.progress();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            // JUCX declares Exception but throws only UcxException (unchecked)
            throw new IllegalStateException(name + ": UcpWorker.progress() failed", e);
        }
        work += peers.afterProgress(transfers);
        driver.publishBusy(transfers.anyInFlight() || peers.closesPending());
        return work;
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
        commands.rejectQueued();
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
        driver.workerClosing();
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
            LockSupport.parkNanos(QUIET_PAUSE_NANOS);
        }
        return false;
    }

    boolean isTerminated() {
        return commands.terminated();
    }

    /** Whether shutdown destroyed the worker (false: it was left open, and its memory must stay). */
    boolean workerDestroyed() {
        return workerDestroyed;
    }

    /** The state of the sleep handshake (for tests). */
    int gateState() {
        return driver.gateState();
    }

    /** The id of the loop's own thread (for tests). */
    long threadId() {
        return thread.threadId();
    }

    /** How often the loop's thread slept in {@code waitForEvents()} (for tests). */
    long waits() {
        return driver.waits();
    }

    /** How many rounds polling threads drove that did some work (for tests). */
    long pollerRounds() {
        return driver.pollerRounds();
    }

    /** How many submits found the command queue full and had to wait (for tests). */
    long queueFullWaits() {
        return commands.queueFullWaits();
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
        return driver.pollersDrive();
    }

    @Override
    public String toString() {
        return name;
    }
}
