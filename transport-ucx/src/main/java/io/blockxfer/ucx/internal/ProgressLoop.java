package io.blockxfer.ucx.internal;

import io.blockxfer.transport.internal.queue.MpscRing;
import io.blockxfer.transport.spi.CompletionSignal;
import io.blockxfer.transport.spi.NotificationSink;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openucx.jucx.ucp.UcpWorker;

/**
 * Drives a transport's UCP worker (workers are single-threaded): takes commands from a queue,
 * issues each transfer, progresses the worker, and ends each transfer when UCX ended its requests.
 * This class is the loop that composes one part per job; each part says how it works and which
 * thread may touch what:
 * <ul>
 *   <li>{@link WorkerDriver}: who drives the worker (the loop's own thread, or a polling thread for
 *       one round), how the worker and its owner's state pass between threads, and how the loop's
 *       thread sleeps and is woken;</li>
 *   <li>{@link CommandIntake}: the command queue, back-pressure on submitters, and rejecting
 *       commands once the loop ended;</li>
 *   <li>{@link RequestTracker}: a transfer's UCX requests, from issue to the transfer's end;</li>
 *   <li>{@link MappedCopier}: transfers with a peer whose region is mapped in this process;</li>
 *   <li>{@link PeerConnections}: the peers' endpoints, their failures and closes;</li>
 *   <li>{@link PeerListener}: the endpoints that initiators on other hosts connected through this
 *       transport's listener;</li>
 *   <li>{@link LoopShutdown}: closing the endpoints and destroying the worker when the loop ends.</li>
 * </ul>
 * A round runs queued commands, calls {@code progress()} (where UCX ends requests), moves endpoint
 * closes on, tells the driver whether work is outstanding, and fires the transport's completion
 * signal when a transfer ended ({@link EndSignal}); the driver runs rounds on the loop's thread and
 * on polling threads.
 *
 * <p><b>Thread safety:</b> {@link #execute}, {@link #driveFromPoller}, {@link #stop},
 * {@link #bindSignal}, {@link #callersWaiting} and the getters from any thread; what commands call ({@link #issue}, {@link #connect}, {@link #abort},
 * {@link #disconnect}) by the current owner of the worker.
 */
final class ProgressLoop implements Runnable {

    private static final System.Logger LOG = System.getLogger(ProgressLoop.class.getName());

    private final String name;
    private final UcpWorker worker;
    private final Thread thread;
    private final MappedCopier copier;
    private final PeerConnections peers;
    private final PeerListener incoming;
    private final RequestTracker transfers;
    private final WorkerDriver driver;
    private final CommandIntake commands;
    private final LoopShutdown shutdown;
    private final EndSignal ends = new EndSignal();
    private final AmNotifications notifications;

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
        this(name, worker, PeerListener.none(name, worker), local, blockLength, pollersDrive, queueCapacity,
                queueFullWaitMillis, pollerGraceNanos);
    }

    /** The same, for a worker that listens for peers on other hosts through {@code incoming}. */
    ProgressLoop(String name, UcpWorker worker, PeerListener incoming, MemorySegment local, long blockLength,
            boolean pollersDrive, int queueCapacity, long queueFullWaitMillis, long pollerGraceNanos) {
        this.name = name;
        this.incoming = incoming;
        this.worker = worker;
        this.thread = Thread.ofPlatform().name(name).daemon().unstarted(this);
        this.notifications = new AmNotifications(name, worker);
        this.copier = new MappedCopier(name, local, blockLength, ends, notifications);
        this.peers = new PeerConnections(name, worker);
        this.transfers = new RequestTracker(name, local, blockLength, peers, copier, ends, notifications);
        MpscRing<LoopCommand> queue = new MpscRing<>(queueCapacity);
        this.driver = new WorkerDriver(worker, thread, queue, this::round, pollersDrive, pollerGraceNanos);
        this.commands = new CommandIntake(name, queue, queueFullWaitMillis, driver, ends);
        this.shutdown = new LoopShutdown(name, worker, commands, driver, peers, incoming, transfers, ends);
    }

    void start() {
        thread.start();
    }

    // ------------------------------------------------------------------ any thread

    /** Queues a command and wakes whoever drives (see {@link CommandIntake#execute}). */
    void execute(LoopCommand command) {
        commands.execute(command);
    }

    /** From now on every transfer that ends fires {@code signal} (see {@link EndSignal}). */
    void bindSignal(CompletionSignal signal) {
        ends.bind(signal);
    }

    /** From now on the notifications that arrive go to {@code sink} (see {@link AmNotifications}). */
    void bindNotificationSink(NotificationSink sink) {
        notifications.bind(sink);
    }

    /** Callers started or stopped waiting (see {@link WorkerDriver#callersWaiting}). */
    void callersWaiting(boolean waiting) {
        driver.callersWaiting(waiting);
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
            shutdown.afterLoop(owned);
        }
    }

    /**
     * One round of driving: run queued commands, progress the worker, move closes on, and fire the
     * completion signal if a transfer ended (after UCX's callbacks returned, never inside one).
     */
    private int round() {
        int work = commands.drain(this);
        notifications.flush(); // the notifications of the transfers just issued, one message a peer
        try {
            work += worker.progress();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            // JUCX declares Exception but throws only UcxException (unchecked)
            throw new IllegalStateException(name + ": UcpWorker.progress() failed", e);
        }
        work += transfers.sendDueNotifications();
        notifications.flush();
        work += notifications.deliverArrived();
        work += peers.afterProgress(transfers);
        work += incoming.afterProgress();
        if (incoming.acceptedNow() > 0) {
            driver.overNetwork(); // a target of a peer on another host
        }
        driver.publishBusy(transfers.anyInFlight() || peers.closesPending() || incoming.closesPending());
        ends.fireIfEnded();
        return work;
    }

    // ------------------------------------------------------------------ what commands call (owner only)

    /** Issues a transfer (see {@link RequestTracker#issue}). */
    void issue(UcxTransfer t) {
        transfers.issue(t);
    }

    /** Connects a peer (see {@link PeerConnections#connect}). */
    void connect(ConnectCommand c) {
        notifications.flush(); // gathered for an endpoint a connect may replace
        peers.connect(c);
    }

    /** Aborts a peer (see {@link PeerConnections#abort}). */
    void abort(UcxPeer p) {
        notifications.flush(); // before the peer's endpoints may close
        peers.abort(p);
    }

    /** Sends a notification without a transfer on the peer's write endpoint, if it has one. */
    void sendNotification(UcxPeer p, byte[] frame) {
        PeerEndpoint pe = p.writes;
        if (pe == null || !p.usable() || p.closing || !notifications.sendMessage(pe.endpoint, frame, p)) {
            p.messageEnded();
            LOG.log(Level.DEBUG, () -> name + ": a notification to " + p + " was not sent: the connection is down");
        }
    }

    /** Disconnects a peer (see {@link PeerConnections#disconnect}). */
    void disconnect(UcxPeer p) {
        notifications.flush(); // before the peer's endpoints may close
        peers.disconnect(p);
    }

    // ------------------------------------------------------------------ getters

    /** Whether the loop ended: nobody drives the worker any more. */
    boolean isTerminated() {
        return commands.terminated();
    }

    /** Whether shutdown destroyed the worker (false: it was left open, and its memory must stay). */
    boolean workerDestroyed() {
        return shutdown.workerDestroyed();
    }

    /** The state of the sleep handshake (for tests). */
    int gateState() {
        return driver.gateState();
    }

    /** The id of the loop's own thread (for tests). */
    long threadId() {
        return thread.threadId();
    }

    /** How often the loop's thread slept on the worker's event descriptor (for tests). */
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

    /** How long the loop's thread stays hot after its last work now (for tests). */
    long idleSpinNanos() {
        return driver.idleSpinNanos();
    }

    /** How many endpoints initiators connected through the listener are open or closing (for tests). */
    int acceptedNow() {
        return incoming.acceptedNow();
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
