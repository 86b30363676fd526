package io.blockxfer.ucx.internal;

import io.blockxfer.transport.PeerRegistrationException;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.internal.queue.MpscRing;
import io.blockxfer.transport.spi.TransferEngine;
import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpRemoteKey;
import org.openucx.jucx.ucp.UcpWorker;

/**
 * Drives a transport's UCP worker (workers are single-threaded): takes commands from a queue,
 * issues each transfer as one put or get per contiguous run of blocks plus one flush of the
 * endpoint, progresses the worker, and publishes each transfer's outcome from its flush callback.
 *
 * <p><b>Who drives.</b> Exactly one thread at a time owns the worker, the command queue and
 * everything below marked "owner only"; ownership is a flag taken with a compare-and-set (which
 * also hands the owner's state over to the next owner). The loop's own thread owns it by default.
 * When polling threads may drive ({@link io.blockxfer.transport.ProgressMode#POLLING_THREAD}),
 * every poll tries to take the flag for one round (drain commands, {@code progress()}, finish
 * closes) and gives up at once if another thread holds it; while polls keep coming the loop's
 * thread lets go of the worker and sleeps ({@link WakeupGate#DORMANT}) instead of competing with
 * them for a core, and takes over again when they stop, or at once for a command that waits
 * (a peer registration). With {@link io.blockxfer.transport.ProgressMode#BACKEND_THREAD} only the
 * loop's thread drives.
 *
 * <p><b>Sleeping.</b> While transfers or endpoint closes are outstanding the loop's thread keeps
 * calling {@code progress()}, which is also where UCX's keepalive runs, spinning first and then
 * parking briefly; with nothing outstanding it spins a moment longer (so back-to-back transfers pay
 * no wakeup), then sleeps in {@code waitForEvents()}. Submitters wake it through a
 * {@link WakeupGate}, so no submit is missed. A full command queue slows the submitter (bounded,
 * {@value #QUEUE_FULL_WAIT_MILLIS} ms) instead of failing its transfer.
 *
 * <p>A peer whose endpoint fails (its error handler fires, or an operation reports the failure) is
 * marked failed once: nothing more is issued on it, its endpoint is force-closed (UCX cannot abort
 * an RMA put otherwise) and every transfer still in flight on it fails when the close completes.
 * The same happens on {@link #abort}.
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
    /** How long after the last poll the loop's thread keeps leaving the worker to polling threads. */
    private static final long POLLER_GRACE_NANOS = 1_000_000;
    /** Polls note their time at most this often (a shared write per poll would cost more). */
    private static final long POLLER_NOTE_NANOS = 20_000;
    /** How long a submitter waits for room in a full command queue before its transfer fails. */
    static final long QUEUE_FULL_WAIT_MILLIS = 5_000;
    /** How long a force-close may take before the peer's transfers are failed without it. */
    private static final long FORCE_CLOSE_GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How long a graceful close may take before it is left to the worker's destruction. */
    private static final long FLUSH_CLOSE_GRACE_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** How long shutdown waits for endpoints to close. */
    private static final long SHUTDOWN_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Default size of the command queue. */
    static final int QUEUE_CAPACITY = 1 << 16;

    private static final VarHandle OWNER;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(ProgressLoop.class, "owner", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String name;
    private final UcpWorker worker;
    private final long localBase;
    private final long blockLength;
    private final boolean pollersDrive;
    private final long queueFullWaitNanos;
    private final MpscRing<LoopCommand> commands;
    private final WakeupGate gate = new WakeupGate();
    private final Object rejectLock = new Object();
    private final Thread thread;
    private final Object signalLock = new Object();
    @SuppressWarnings("unused") // accessed through OWNER: 1 while a thread drives the worker
    private volatile int owner;
    private volatile long lastPollNanos = System.nanoTime() - 2 * POLLER_GRACE_NANOS;
    private volatile boolean stopping;
    private volatile boolean terminated;
    private boolean workerClosed; // guarded by signalLock
    private final AtomicLong waits = new AtomicLong();
    private final AtomicLong pollerRounds = new AtomicLong();
    private final AtomicLong queueFullWaits = new AtomicLong();

    // ---- owner only
    private boolean drivingClosed;
    private final ArrayList<UcxPeer> peers = new ArrayList<>();
    private final ArrayDeque<UcxPeer> toForceClose = new ArrayDeque<>();
    private final ArrayList<UcxPeer> closing = new ArrayList<>();
    private final ArrayDeque<OpCallback> callbacks = new ArrayDeque<>();
    private int inFlight;

    ProgressLoop(String name, UcpWorker worker, long localBase, long blockLength, boolean pollersDrive) {
        this(name, worker, localBase, blockLength, pollersDrive, QUEUE_CAPACITY, QUEUE_FULL_WAIT_MILLIS);
    }

    /** A loop with a queue of {@code queueCapacity} commands, whose submitters wait for room at most {@code queueFullWaitMillis}. */
    ProgressLoop(String name, UcpWorker worker, long localBase, long blockLength, boolean pollersDrive,
            int queueCapacity, long queueFullWaitMillis) {
        this.queueFullWaitNanos = TimeUnit.MILLISECONDS.toNanos(queueFullWaitMillis);
        this.name = name;
        this.worker = worker;
        this.localBase = localBase;
        this.blockLength = blockLength;
        this.pollersDrive = pollersDrive;
        this.commands = new MpscRing<>(queueCapacity);
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
        if (!tryOwn()) {
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
            int work = round();
            if (work > 0) {
                pollerRounds.incrementAndGet();
            }
            return work;
        } finally {
            disown();
        }
    }

    private boolean tryOwn() {
        return OWNER.compareAndSet(this, 0, 1);
    }

    private void disown() {
        OWNER.setVolatile(this, 0);
    }

    private boolean pollersActive() {
        return pollersDrive && System.nanoTime() - lastPollNanos < POLLER_GRACE_NANOS;
    }

    /**
     * Stops the loop: rejects queued commands, closes every endpoint (bounded), destroys the worker.
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
                // polls drive: stay out of their way, but run commands nobody else runs
                if (owned) {
                    disown();
                    owned = false;
                }
                if (gate.maySleep(WakeupGate.DORMANT) && !stopping) {
                    LockSupport.parkNanos(POLLER_GRACE_NANOS);
                }
                gate.awake();
                if (tryOwn()) {
                    try {
                        if (!drivingClosed && !commands.isEmpty()) {
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
            } else if (inFlight > 0 || !closing.isEmpty()) {
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

    /** One round of driving: run queued commands, progress the worker, finish closes. */
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
        work += afterProgress();
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

    /** Force-closes peers that failed inside {@code progress()}, and finishes endpoint closes. */
    private int afterProgress() {
        int work = 0;
        UcxPeer p;
        while ((p = toForceClose.poll()) != null) {
            forceClose(p);
            work++;
        }
        if (!closing.isEmpty()) {
            long now = System.nanoTime();
            for (int i = closing.size() - 1; i >= 0; i--) {
                UcxPeer c = closing.get(i);
                boolean done = c.endpointsClosed();
                long grace = c.state == UcxPeer.CLOSED ? FLUSH_CLOSE_GRACE_NANOS : FORCE_CLOSE_GRACE_NANOS;
                if (done || now - c.closeStartedNanos > grace) {
                    closing.remove(i);
                    closed(c, done);
                    work++;
                }
            }
        }
        return work;
    }

    // ------------------------------------------------------------------ transfers

    /**
     * Issues a transfer: a WRITE as one implicit put per contiguous run of blocks and one flush of
     * the write endpoint; a READ as one get request per run on the read endpoint. Reads get their
     * own endpoint because UCX 1.18 crashes (in {@code ucp_ep_flush_progress}) when an endpoint is
     * force-closed while a flush waits behind software-emulated gets.
     */
    void issue(UcxTransfer t) {
        UcxPeer p = t.peer;
        boolean write = t.op == TransferOp.WRITE;
        PeerEndpoint pe = p.usable() && !p.closing ? (write ? p.writes : readEndpoint(p)) : null;
        if (pe == null) {
            t.status = TransferEngine.FAILED;
            return;
        }
        OpCallback cb = callbacks.pollFirst();
        if (cb == null) {
            cb = new OpCallback(this);
        }
        cb.transfer = t;
        cb.pending = 1; // the issuing guard
        t.callback = cb;
        p.link(t);
        inFlight++;
        UcpEndpoint ep = pe.endpoint;
        UcpRemoteKey rkey = pe.rkey();
        int[] l = t.localBlocks;
        int[] r = t.remoteBlocks;
        int n = t.count;
        try {
            int i = 0;
            while (i < n) {
                int run = 1;
                while (i + run < n && l[i + run] == l[i] + run && r[i + run] == r[i] + run) {
                    run++;
                }
                long local = localBase + l[i] * blockLength;
                long remote = p.remoteBase + r[i] * blockLength;
                long bytes = run * blockLength;
                if (write) {
                    ep.putNonBlockingImplicit(local, bytes, remote, rkey);
                } else {
                    cb.pending++;
                    ep.getNonBlocking(remote, rkey, local, bytes, cb);
                }
                i += run;
            }
            if (write) {
                cb.pending++;
                ep.flushNonBlocking(cb);
            }
        } catch (RuntimeException e) {
            // JUCX has already called onError for a request that threw; complete() is idempotent
            complete(t, TransferEngine.FAILED);
            peerFailed(p, UcsStatus.statusOf(e, UcsStatus.CONNECTION_RESET), (write ? "put: " : "get: ")
                    + UcsStatus.describe(e));
        }
        requestEnded(cb, UcsStatus.OK, null); // releases the issuing guard
    }

    /** One request of a transfer ended: the last one completes the transfer, unless it ended already. */
    void requestEnded(OpCallback cb, int status, String message) {
        try {
            if (status != UcsStatus.OK && cb.error == UcsStatus.OK) {
                cb.error = status;
                cb.errorMessage = message;
            }
            if (--cb.pending > 0) {
                return;
            }
            UcxTransfer t = cb.transfer;
            int error = cb.error;
            String errorMessage = cb.errorMessage;
            cb.transfer = null;
            cb.error = UcsStatus.OK;
            cb.errorMessage = null;
            callbacks.addFirst(cb);
            if (t == null || t.callback != cb) {
                return;
            }
            UcxPeer p = t.peer;
            complete(t, error == UcsStatus.OK ? TransferEngine.DONE : TransferEngine.FAILED);
            if (error != UcsStatus.OK && error != UcsStatus.CANCELED) {
                peerFailed(p, error, (t.op == TransferOp.WRITE ? "flush: " : "get: ") + errorMessage);
            }
        } catch (RuntimeException | Error e) {
            // never let an exception unwind into UCX's progress
            LOG.log(Level.ERROR, name + ": request completion failed", e);
        }
    }

    /** Ends a transfer once; a callback still registered with UCX is detached, not reused. */
    private void complete(UcxTransfer t, int status) {
        if (t.status != TransferEngine.PENDING) {
            return;
        }
        OpCallback cb = t.callback;
        if (cb != null) {
            t.callback = null;
            if (cb.transfer == t) {
                cb.transfer = null;
            }
        }
        if (t.linked) {
            t.peer.unlink(t);
            inFlight--;
        }
        t.status = status;
    }

    private void failInFlight(UcxPeer p) {
        while (p.first != null) {
            complete(p.first, TransferEngine.FAILED);
        }
    }

    // ------------------------------------------------------------------ peers

    /** Builds the write endpoint and remote key of a peer. */
    void connect(ConnectCommand c) {
        UcxPeer p = c.peer;
        try {
            p.writes = PeerEndpoint.open(worker, "blockxfer:" + p.peerId, p.metadata,
                    (ep, status, message) -> endpointError(p, status, message));
        } catch (RuntimeException | LinkageError e) {
            p.state = UcxPeer.FAILED;
            p.failure = "registration failed";
            c.result.completeExceptionally(new PeerRegistrationException("UCX could not reach peer '" + p.peerId
                    + "' from its metadata (" + p.metadata + "): " + UcsStatus.describe(e)
                    + ResourceShortage.describe(), e));
            return;
        }
        peers.add(p);
        if (!c.result.complete(p)) {
            // the registering thread gave up waiting: nothing will use or disconnect this peer
            disconnect(p);
        }
    }

    /** The peer's read endpoint, built on first use; null (and the peer failed) if that fails. */
    private PeerEndpoint readEndpoint(UcxPeer p) {
        if (p.reads == null) {
            try {
                p.reads = PeerEndpoint.open(worker, "blockxfer-read:" + p.peerId, p.metadata,
                        (ep, status, message) -> endpointError(p, status, message));
            } catch (RuntimeException | LinkageError e) {
                peerFailed(p, UcsStatus.statusOf(e, UcsStatus.CONNECTION_RESET), "opening the read endpoint: "
                        + UcsStatus.describe(e));
                return null;
            }
        }
        return p.reads;
    }

    private void endpointError(UcxPeer p, int status, String message) {
        try {
            peerFailed(p, status, "endpoint error: " + message);
        } catch (RuntimeException | Error e) {
            LOG.log(Level.ERROR, name + ": endpoint error handling failed", e);
        }
    }

    /** Marks a peer failed, once: nothing more is issued on it and its endpoints are force-closed. */
    private void peerFailed(UcxPeer p, int status, String what) {
        if (p.state != UcxPeer.ALIVE) {
            return;
        }
        p.failure = what + " (" + UcsStatus.describe(status) + ")";
        p.state = UcxPeer.FAILED;
        if (!p.aborted) {
            // a peer that closed or died while idle is news, not trouble; failing transfers are
            LOG.log(p.inFlight > 0 ? Level.WARNING : Level.INFO, "{0}: UCX connection to peer ''{1}'' failed: {2};"
                    + " it takes no more transfers, its {3} transfers in flight fail and its endpoints are"
                    + " force-closed", name, p.peerId, p.failure, p.inFlight);
        }
        toForceClose.add(p);
    }

    /** Aborts a peer: force-closes its endpoints, failing its transfers in flight. */
    void abort(UcxPeer p) {
        if (p.state == UcxPeer.ALIVE) {
            p.failure = "connection aborted (peer removed, replaced or past its deadline)";
            p.state = UcxPeer.ABORTED;
        }
        startClose(p, true);
    }

    /** Releases a peer whose transfers were all released: a graceful close when it is healthy. */
    void disconnect(UcxPeer p) {
        p.disconnectRequested = true;
        if (p.closing) {
            if (!closing.contains(p)) {
                peers.remove(p);
            }
            return;
        }
        boolean healthy = p.state == UcxPeer.ALIVE && p.inFlight == 0;
        if (p.state == UcxPeer.ALIVE) {
            p.state = UcxPeer.CLOSED;
        }
        startClose(p, !healthy);
    }

    private void forceClose(UcxPeer p) {
        startClose(p, true);
    }

    private void startClose(UcxPeer p, boolean force) {
        if (p.closing) {
            return;
        }
        p.closing = true;
        p.closeStartedNanos = System.nanoTime();
        if (p.writes != null) {
            p.writes.startClose(force);
        }
        if (p.reads != null) {
            p.reads.startClose(force);
        }
        closing.add(p);
    }

    /** A peer's endpoints closed (or the grace ran out): fail what is left, free the remote keys. */
    private void closed(UcxPeer p, boolean completed) {
        if (!completed) {
            LOG.log(Level.DEBUG, () -> name + ": the endpoint close of " + p + " did not complete in time");
        }
        failInFlight(p);
        // after a force-close the remote keys go last: operations using them had to end first
        if (p.writes != null) {
            p.writes.destroyRkey();
        }
        if (p.reads != null) {
            p.reads.destroyRkey();
        }
        if (p.state == UcxPeer.ALIVE) {
            p.state = UcxPeer.CLOSED;
        }
        if (p.disconnectRequested) {
            peers.remove(p);
        }
    }

    // ------------------------------------------------------------------ shutdown

    private void shutdown() {
        rejectQueued();
        try {
            for (UcxPeer p : new ArrayList<>(peers)) {
                disconnect(p);
            }
            long deadline = System.nanoTime() + SHUTDOWN_NANOS;
            while (!closing.isEmpty() && System.nanoTime() - deadline < 0) {
                worker.progress();
                afterProgress();
            }
        } catch (Throwable t) {
            LOG.log(Level.WARNING, name + ": closing endpoints at shutdown failed", t);
        }
        for (UcxPeer p : peers) {
            failInFlight(p);
        }
        for (UcxPeer p : closing) {
            failInFlight(p);
        }
        synchronized (signalLock) {
            workerClosed = true;
        }
        try {
            worker.close();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, name + ": destroying the UCP worker failed: " + e);
        }
    }

    boolean isTerminated() {
        return terminated;
    }

    /** The state of the sleep handshake (for tests). */
    int gateState() {
        return gate.state();
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

    /** Whether polls may drive the worker. */
    boolean pollersDrive() {
        return pollersDrive;
    }

    @Override
    public String toString() {
        return name;
    }
}
