package io.blockxfer.ucx.internal;

import io.blockxfer.transport.BlockRegion;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PeerRegistrationException;
import io.blockxfer.transport.ProgressMode;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.TransportException;
import io.blockxfer.transport.spi.CompletionSignal;
import io.blockxfer.transport.spi.NotificationSink;
import io.blockxfer.transport.spi.OutboundNotification;
import io.blockxfer.transport.spi.TransferEngine;
import io.blockxfer.ucx.UcxProvider;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

/**
 * The UCX {@link TransferEngine}: one UCP context with RMA and wakeup, one registered region, and
 * one {@link ProgressLoop} that owns the worker. Publishes {@link UcxMetadata}; a peer is one
 * endpoint in peer error mode plus one unpacked remote key, built once on the loop thread, and the
 * place its region is mapped in this process when UCX maps it here ({@link PeerMapping}); READs of
 * other peers get a second endpoint and key, built on the first one. A transfer is queued to the
 * loop and issued there as one implicit put per contiguous run plus one flush (a READ: a copy from
 * the mapped region, or one get per run); {@link #status} is a volatile read. A peer on another host
 * that UCX reaches over TCP is connected through its listener ({@link PeerRoute}, {@link PeerListener}),
 * which makes its puts zero-copy; the engine listens for such peers itself. The loop fires the
 * transport's completion signal when transfers end, and sleeps on the worker's event descriptor
 * when it has nothing to do, so a waiting caller needs no status thread.
 *
 * <p>UCX cannot abort an RMA operation in flight: {@link #abort} force-closes the peer's endpoint,
 * which ends its operations, and a transfer stays owned by the engine until that happens.
 *
 * <p><b>Thread safety:</b> thread-safe, as {@link TransferEngine} requires.
 */
public final class UcxEngine implements TransferEngine {

    private static final System.Logger LOG = System.getLogger(UcxEngine.class.getName());

    static {
        // classes of failure paths, loaded now: loading a class takes a file descriptor, and one of
        // those paths is running out of them
        for (Class<?> c : new Class<?>[] {UcsStatus.class, ConnectCommand.class, PeerCommand.class,
                PeerMemoryCheck.class, OwnerMappings.class, LocalWorkers.class, UcxMemoryBudget.class, ResourceShortage.class,
                UcxMemoryBudget.Snapshot.class, io.blockxfer.transport.internal.memory.MemoryBudget.class,
                io.blockxfer.transport.internal.memory.HostMemory.class,
                io.blockxfer.transport.InsufficientMemoryException.class, PeerRegistrationException.class,
                TransportException.class}) {
            try {
                Class.forName(c.getName(), true, c.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }
    private static final long CONNECT_TIMEOUT_MILLIS = 15_000;
    private static final long STOP_TIMEOUT_MILLIS = 10_000;
    private static final int POOL_LIMIT = 4096;
    /** Messages without a transfer per peer that UCX may hold at once. */
    static final int MESSAGES_IN_FLIGHT = 1024;

    private final String agentName;
    private final UcpContext context;
    private final LocalRegion region;
    private final ProgressLoop loop;
    private final ProgressMode progressMode;
    private final byte[] metadata;
    private final LocalIdentity identity;
    private final ArrayDeque<UcxTransfer> pool = new ArrayDeque<>();
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * Opens an engine over the config's region.
     *
     * @throws io.blockxfer.transport.TransportUnavailableException if UCX cannot be loaded here
     * @throws IllegalArgumentException if the options are unknown or UCX rejects them
     * @throws io.blockxfer.transport.InsufficientMemoryException if the region to allocate does not fit
     *     this host ({@link UcxMemoryBudget})
     */
    public UcxEngine(TransportConfig config) {
        this(config, TimeUnit.MICROSECONDS.toNanos(WorkerDriver.POLLER_GRACE_MICROS));
    }

    /**
     * An engine whose progress thread leaves the worker to polls for {@code pollerGraceNanos} after
     * the last one while nothing is outstanding (for tests that need polls to count as active).
     */
    UcxEngine(TransportConfig config, long pollerGraceNanos) {
        UcxLibrary.ensureLoaded();
        this.agentName = config.agentName();
        UcxSettings settings = UcxSettings.resolve(config.options());
        if (config.region().callerMemory().isEmpty()) {
            String order = settings.ucxConfig().get("ALLOC_PRIO");
            UcxMemoryBudget.check(config.region().byteSize(), order != null ? order : System.getenv("UCX_ALLOC_PRIO"));
        }
        UcpParams params = new UcpParams().requestRmaFeature().requestWakeupFeature().requestAmFeature();
        settings.ucxConfig().forEach(params::setConfig);
        try {
            this.context = new UcpContext(params);
        } catch (RuntimeException e) {
            String shortage = ResourceShortage.describe();
            if (!shortage.isEmpty()) {
                throw new TransportException("UCX could not create a context: " + UcsStatus.describe(e) + shortage, e);
            }
            throw new IllegalArgumentException("UCX refused to create a context with settings " + settings + ": "
                    + UcsStatus.describe(e), e);
        }
        UcpWorker worker = null;
        PeerListener incoming = null;
        LocalRegion mapped = null;
        String name = "blockxfer-ucx-" + agentName;
        try {
            worker = context.newWorker(new UcpWorkerParams());
            ByteBuffer address = worker.getAddress();
            byte[] workerAddress = new byte[address.remaining()];
            address.duplicate().get(workerAddress);
            UcpWorkerAddress own;
            try {
                own = UcpWorkerAddress.parse(workerAddress);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("this UCX's own worker address does not parse as UCX 1.18's format,"
                        + " so peer descriptors cannot be checked (" + e.getMessage() + ")", e);
            }
            incoming = PeerListener.open(name, worker, settings.listen(), own);
            mapped = LocalRegion.map(context, config.region());
            BlockRegion r = mapped.region();
            this.metadata = new UcxMetadata(r.baseAddress(), r.byteSize(), workerAddress, mapped.packedRkey(),
                    incoming.metadata()).encode();
            try {
                this.identity = LocalIdentity.of(workerAddress, mapped.packedRkey(), r.baseAddress(), r.byteSize(),
                        incoming.address());
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("this UCX's own worker address or remote key does not parse as UCX "
                        + "1.18 formats, so peer descriptors cannot be checked (" + e.getMessage() + ")", e);
            }
            this.region = mapped;
            this.progressMode = resolve(config.progressMode());
            this.loop = new ProgressLoop(name, worker, incoming, r.segment(), r.blockLength(),
                    progressMode == ProgressMode.POLLING_THREAD, CommandIntake.QUEUE_CAPACITY,
                    CommandIntake.QUEUE_FULL_WAIT_MILLIS, pollerGraceNanos);
        } catch (IllegalArgumentException e) {
            closeQuietly(incoming, mapped, worker, e);
            throw e; // a setting that cannot be honoured (a listen host that does not resolve)
        } catch (RuntimeException | Error e) {
            closeQuietly(incoming, mapped, worker, e);
            if (e instanceof TransportException te) {
                throw te;
            }
            throw new TransportException("opening a UCX transport for " + config.region() + " failed: "
                    + UcsStatus.describe(e) + ResourceShortage.describe(), e);
        }
        LocalWorkers.add(identity.worker);
        loop.start();
    }

    private void closeQuietly(@Nullable PeerListener incoming, @Nullable LocalRegion mapped, @Nullable UcpWorker worker,
            Throwable failure) {
        try {
            if (incoming != null) {
                incoming.close();
            }
            if (worker != null) {
                worker.close();
            }
            if (mapped != null) {
                mapped.close();
            }
            context.close();
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /**
     * The mode {@code requested} runs in: {@link ProgressMode#AUTO} is
     * {@link ProgressMode#POLLING_THREAD}, where a caller that polls drives the worker itself and the
     * progress thread only stands in for callers that poll rarely (on a busy host the two threads
     * would otherwise compete for a core).
     */
    static ProgressMode resolve(ProgressMode requested) {
        return requested == ProgressMode.AUTO ? ProgressMode.POLLING_THREAD : requested;
    }

    /** The progress mode this engine runs in (never {@link ProgressMode#AUTO}). */
    ProgressMode progressMode() {
        return progressMode;
    }

    /** The engine's progress loop (for tests). */
    ProgressLoop loop() {
        return loop;
    }

    @Override
    public int progress() {
        return loop.driveFromPoller();
    }

    /**
     * Fires {@code signal} whenever transfers end: after every round of the progress loop in which
     * one ended (on the loop's thread or a polling thread, after UCX's callbacks returned), and
     * when queued transfers are rejected or shutdown fails what UCX never ended.
     */
    @Override
    public boolean bindCompletionSignal(CompletionSignal signal) {
        loop.bindSignal(signal);
        return true;
    }

    /** While callers wait, the progress thread drives the worker in every progress mode. */
    @Override
    public void callersWaiting(boolean waiting) {
        loop.callersWaiting(waiting);
    }

    @Override
    public String backendName() {
        return UcxProvider.NAME;
    }

    @Override
    public BlockRegion region() {
        return region.region();
    }

    @Override
    public byte[] agentMetadata() {
        return metadata.clone();
    }

    @Override
    public Object connect(String peerId, PeerDescriptor peer) {
        UcxMetadata remote = UcxMetadata.decode(peerId, peer.metadata());
        remote.checkCovers(peerId, peer);
        InetSocketAddress via = PeerRoute.choose(remote, identity);
        PeerMemoryCheck.check(peerId, peer, remote, identity, via);
        ConnectCommand command = new ConnectCommand(new UcxPeer(peerId, peer.baseAddress(), peer.numBlocks(), remote),
                via);
        try {
            loop.execute(command);
        } catch (IllegalStateException e) {
            throw new PeerRegistrationException("registering peer '" + peerId + "' failed: " + e.getMessage(), e);
        }
        UcxPeer connected;
        try {
            connected = command.result.get(CONNECT_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TransportException te) {
                throw te;
            }
            throw new PeerRegistrationException("registering peer '" + peerId + "' failed: " + e.getCause(),
                    e.getCause());
        } catch (TimeoutException e) {
            command.result.cancel(false);
            throw new PeerRegistrationException("registering peer '" + peerId + "' timed out after "
                    + CONNECT_TIMEOUT_MILLIS + " ms (the UCX progress thread is stuck)", e);
        } catch (InterruptedException e) {
            command.result.cancel(false);
            Thread.currentThread().interrupt();
            throw new PeerRegistrationException("registering peer '" + peerId + "' was interrupted", e);
        }
        // READs of a peer whose region UCX mapped here copy from the mapping, once the kernel
        // confirms where it is; nothing reads it before this handle is returned
        connected.mapped = PeerMapping.of(command.mappedAddress, remote, peer.baseAddress(),
                (long) peer.numBlocks() * peer.blockLength());
        return connected;
    }

    @Override
    public Object submit(long transferId, Object peer, TransferOp op, int[] localBlocks, int[] remoteBlocks) {
        return submit(peer, op, localBlocks, remoteBlocks, null);
    }

    /**
     * Carries the notification as an active message on the peer's write endpoint, sent by the loop
     * once the transfer's flush completed (or its copy to a mapped region was fenced); the transfer is
     * done once the message went out.
     */
    @Override
    public Object submit(long transferId, Object peer, TransferOp op, int[] localBlocks, int[] remoteBlocks,
            OutboundNotification notification) {
        return submit(peer, op, localBlocks, remoteBlocks, notification.frame());
    }

    @Override
    public boolean bindNotificationSink(NotificationSink sink) {
        loop.bindNotificationSink(sink);
        return true;
    }

    /**
     * Queues the message for the loop, which sends it on the peer's write endpoint. At most
     * {@value #MESSAGES_IN_FLIGHT} messages per peer may be in flight (UCX not done with them); a
     * sender that gets ahead of its receiver waits for room, driving the worker where polls may,
     * for at most the command queue's wait, then the message is refused.
     */
    @Override
    public void sendNotification(Object peer, OutboundNotification notification) {
        UcxPeer p = (UcxPeer) peer;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CommandIntake.QUEUE_FULL_WAIT_MILLIS);
        while (p.messagesInFlight.get() >= MESSAGES_IN_FLIGHT) {
            if (!p.usable()) {
                break;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("notifications to peer '" + p.peerId + "' are not draining: "
                        + p.messagesInFlight.get() + " in flight for " + CommandIntake.QUEUE_FULL_WAIT_MILLIS + " ms");
            }
            loop.driveFromPoller();
            java.util.concurrent.locks.LockSupport.parkNanos(20_000);
        }
        if (!p.usable()) {
            throw new IllegalStateException("UCX connection to peer '" + p.peerId + "' is down: " + p.failure);
        }
        p.messagesInFlight.incrementAndGet();
        try {
            loop.execute(new NotifyCommand(p, notification.frame()));
        } catch (RuntimeException e) {
            p.messageEnded();
            throw e;
        }
    }

    private Object submit(Object peer, TransferOp op, int[] localBlocks, int[] remoteBlocks,
            byte @Nullable [] notification) {
        UcxPeer p = (UcxPeer) peer;
        if (!p.usable()) {
            throw new IllegalStateException("UCX connection to peer '" + p.peerId + "' is down: " + p.failure);
        }
        int localCount = region.region().numBlocks();
        for (int i = 0; i < localBlocks.length; i++) {
            if (localBlocks[i] < 0 || localBlocks[i] >= localCount || remoteBlocks[i] < 0
                    || remoteBlocks[i] >= p.numBlocks) {
                throw new IllegalArgumentException("block pair " + localBlocks[i] + " -> " + remoteBlocks[i]
                        + " is outside the regions");
            }
        }
        UcxTransfer t = take();
        t.fill(p, op, localBlocks, remoteBlocks, notification);
        try {
            loop.execute(t);
        } catch (RuntimeException e) {
            if (t.status == PENDING) {
                recycle(t);
            }
            throw e;
        }
        return t;
    }

    @Override
    public int status(Object transfer) {
        return ((UcxTransfer) transfer).status;
    }

    @Override
    public void release(Object transfer) {
        recycle((UcxTransfer) transfer);
    }

    @Override
    public void abort(Object peer) {
        UcxPeer p = (UcxPeer) peer;
        p.aborted = true;
        try {
            loop.execute(new PeerCommand(p, false));
        } catch (IllegalStateException e) {
            LOG.log(Level.DEBUG, () -> this + ": abort of " + p + " not queued: " + e.getMessage());
        }
    }

    @Override
    public void disconnect(Object peer) {
        UcxPeer p = (UcxPeer) peer;
        try {
            loop.execute(new PeerCommand(p, true));
        } catch (IllegalStateException e) {
            LOG.log(Level.DEBUG, () -> this + ": disconnect of " + p + " not queued: " + e.getMessage());
        }
    }

    @Override
    public void close(boolean leaked) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        // from now on no peer descriptor may name this worker or its memory
        LocalWorkers.remove(identity.worker);
        boolean stopped = loop.stop(STOP_TIMEOUT_MILLIS);
        if (!stopped) {
            LOG.log(Level.WARNING, "{0}: the UCX progress thread did not stop within {1} ms", this,
                    STOP_TIMEOUT_MILLIS);
        }
        if (leaked || !stopped || !loop.workerDestroyed()) {
            LOG.log(Level.WARNING, "{0}: transfers may still be in flight; the UCX context and its memory are"
                    + " left mapped", this);
            return;
        }
        try {
            region.close();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "{0}: unmapping the region failed: {1}", this, UcsStatus.describe(e));
        }
        try {
            context.close();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "{0}: closing the UCP context failed: {1}", this, UcsStatus.describe(e));
        }
    }

    private UcxTransfer take() {
        synchronized (pool) {
            UcxTransfer t = pool.pollFirst();
            return t != null ? t : new UcxTransfer();
        }
    }

    private void recycle(UcxTransfer t) {
        t.clear();
        synchronized (pool) {
            if (pool.size() < POOL_LIMIT) {
                pool.addFirst(t);
            }
        }
    }

    @Override
    public String toString() {
        return "ucx engine '" + agentName + "'";
    }
}
