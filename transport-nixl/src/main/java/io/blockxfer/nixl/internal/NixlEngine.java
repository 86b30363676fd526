package io.blockxfer.nixl.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.blockxfer.nixl.NixlTelemetry;
import io.blockxfer.nixl.internal.RemoteAgents.RemoteAgent;
import io.blockxfer.transport.BlockRegion;
import io.blockxfer.transport.IncompatiblePeerException;
import io.blockxfer.transport.MalformedPeerDescriptorException;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PeerRegistrationException;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.TransportException;
import io.blockxfer.transport.internal.memory.MemoryBudget;
import io.blockxfer.transport.spi.NotificationSink;
import io.blockxfer.transport.spi.OutboundNotification;
import io.blockxfer.transport.spi.TransferEngine;
import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The NIXL {@link TransferEngine}, the seed's {@code NixlTransport} below the managed transport:
 * one agent, one registration of the whole region, one prepared local descriptor list of every
 * block, and per peer a prepared remote list of the peer's blocks; each transfer is one
 * {@code make_xfer_req} over index arrays plus one {@code post_xfer_req}, polled with
 * {@code get_xfer_status}, released with {@code release_xfer_req} + {@code destroy_xfer_req}.
 *
 * <p><b>Dead peers.</b> The C ABI folds NIXL's remote-disconnect error into the generic -2 and
 * {@code check_remote_md} keeps answering success for a dead peer, so the engine decides itself:
 * any error from {@code make}, {@code post} or {@code status} of a peer's transfer marks that
 * remote agent dead and invalidates it in NIXL. NIXL then answers {@code NOT_FOUND} for the
 * peer's other transfers in flight at their next status check (measured: immediately), so they
 * are reported failed at the next poll, and later submits to the peer fail at once until it is
 * re-added. A peer that freezes without an error hits the transfer deadline: the managed
 * transport then calls {@link #abort}, which invalidates the remote the same way. Transports of
 * this JVM are fenced ({@link LocalAgents}): closing one fails transfers to it at once.
 *
 * <p>A remote agent loaded under one NIXL name is shared, with a reference count, by every peer
 * id registered with it, so removing one peer id never invalidates another's connection; once no
 * peer id uses a healthy one it stays loaded, idle, for a later {@code connect} with the same
 * metadata ({@link RemoteAgents} says why: NIXL cannot close a live peer's UCX endpoint).
 *
 * <p><b>Notifications</b> ({@link NixlNotifications}) are NIXL's own: a transfer's message rides on
 * its request and NIXL sends it after the data, from the post or the status check that sees the
 * transfer complete, never for a failed one; a message without a transfer is {@code gen_notif}. A
 * blockxfer peer gets the frame, a plain NIXL agent the bare payload. Received messages are drained
 * from the agent's notification map by every {@link #progress()} and by the engine's notification
 * thread, which also checks notified transfers the caller leaves in flight.
 *
 * <p><b>Thread safety:</b> thread-safe as {@link TransferEngine} requires; the agent runs in
 * NIXL's RW mode and no transfer request is touched by two threads at once (the managed transport
 * guarantees it).
 */
public final class NixlEngine implements TransferEngine {

    private static final System.Logger LOG = System.getLogger(NixlEngine.class.getName());
    private static final SecureRandom NONCES = new SecureRandom();
    private static final MemorySegment NO_OPT_ARGS = MemorySegment.NULL;

    private final String backendName;
    private final String agentName;
    private final NixlSettings settings;
    private final long closeTimeoutNanos;
    private final NixlAgent agent;
    private final MemorySegment agentHandle;
    /** The arena of a region this engine allocated; null for caller memory. */
    private final @Nullable Arena regionArena;
    private final BlockRegion region;
    private final MemorySegment registration;
    private final long localList;
    private final byte[] metadata;
    private final long nonce;
    private final int pid;
    private final LocalAgents.Fence fence;
    private final TelemetryRing telemetry;
    private final Object lifecycleLock = new Object();
    private final RemoteAgents remotes;
    private final List<NixlXfer> unreleased = new ArrayList<>();
    private final NixlXfer.Pool pool = new NixlXfer.Pool();
    private final NixlNotifications notifications;
    private volatile boolean closed;

    /**
     * Opens an agent over the config's region and registers it.
     *
     * @throws IllegalArgumentException for bad {@code nixl.*} options
     * @throws TransportException if NIXL refuses (the message carries NIXL's status)
     * @throws io.blockxfer.transport.InsufficientMemoryException if the region to allocate does not
     *     fit this host ({@link MemoryBudget}); nothing is allocated then
     */
    public NixlEngine(String backendName, TransportConfig config) {
        this.backendName = backendName;
        this.agentName = config.agentName();
        this.settings = NixlSettings.from(config.options(), config.progressMode());
        this.closeTimeoutNanos = config.closeTimeout().toNanos();
        this.telemetry = new TelemetryRing(settings.telemetry(), settings.telemetryHistory());
        NativeResources.preload();
        RegionSpec spec = config.region();
        Arena memory = null;
        NixlAgent created = null;
        MemorySegment reg = null;
        long local = 0;
        LocalAgents.Fence f = null;
        long n;
        try {
            BlockRegion r;
            if (spec.callerMemory().isPresent()) {
                r = new BlockRegion(spec.callerMemory().get(), spec.numBlocks(), spec.blockLength(),
                        BlockRegion.Ownership.CALLER);
            } else {
                MemoryBudget.check(spec.byteSize());
                memory = Arena.ofShared();
                r = new BlockRegion(RegionMemory.map(memory, spec.byteSize(), settings.hugePages()), spec.numBlocks(),
                        spec.blockLength(), BlockRegion.Ownership.BACKEND);
            }
            created = NixlAgent.create(agentName, settings);
            reg = created.register(r.baseAddress(), r.byteSize());
            local = created.prepare("", r.baseAddress(), r.blockLength(), r.numBlocks(), 0L);
            byte[] nixlBlob = created.localMetadata();
            long candidate;
            do {
                candidate = NONCES.nextLong();
            } while (candidate == 0);
            n = candidate;
            this.pid = NixlNative.getpid();
            this.metadata = NixlMetadata.frame(agentName, n, pid, r.baseAddress(), r.byteSize(), nixlBlob);
            NixlMetadata.checkOwn(metadata, r.baseAddress(), r.byteSize());
            f = LocalAgents.register(n, agentName);
            this.region = r;
        } catch (NixlException e) {
            undo(created, reg, local, memory);
            throw new TransportException("opening NIXL agent '" + agentName + "' failed: " + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            undo(created, reg, local, memory);
            throw e;
        }
        this.nonce = n;
        this.fence = f;
        this.agent = created;
        this.agentHandle = created.handle();
        this.regionArena = memory;
        this.registration = reg;
        this.localList = local;
        this.remotes = new RemoteAgents(created, "NIXL engine '" + agentName + "'", settings.idleConnections());
        this.notifications = new NixlNotifications(agentHandle, this::checkClaimed, toString(),
                "blockxfer-nixl-notifications-" + agentName);
    }

    private static void undo(@Nullable NixlAgent agent, @Nullable MemorySegment reg, long local,
            @Nullable Arena memory) {
        if (agent != null) {
            if (local != 0) {
                agent.releasePrepared(local);
            }
            if (reg != null) {
                agent.deregister(reg);
            }
            agent.destroy();
        }
        if (memory != null) {
            memory.close();
        }
    }

    // ------------------------------------------------------------------ facts

    @Override
    public String backendName() {
        return backendName;
    }

    @Override
    public BlockRegion region() {
        return region;
    }

    @Override
    public byte[] agentMetadata() {
        return metadata.clone();
    }

    /** The NIXL agent this engine drives (for tests and the benchmark). */
    public NixlAgent agent() {
        return agent;
    }

    /** Connections to remote agents that no peer id uses, kept for re-adding ({@link RemoteAgents}). */
    int idleConnections() {
        return remotes.idleCount();
    }

    /** How often {@code connect} took up an idle connection instead of loading the metadata again. */
    long reusedConnections() {
        return remotes.reuseCount();
    }

    /** How many idle connections were closed because more than {@code nixl.idleConnections} were idle. */
    long idleConnectionsClosed() {
        return remotes.idleInvalidationCount();
    }

    @Override
    public <T> Optional<T> feature(Class<T> type) {
        return type == NixlTelemetry.class ? Optional.of(type.cast(telemetry)) : Optional.empty();
    }

    // ------------------------------------------------------------------ peers

    /** The engine's peer handle. */
    static final class NixlPeer {
        final String peerId;
        final RemoteAgent remote;
        final long remoteList;
        /** A blockxfer transport (framed metadata) gets notification frames; a plain NIXL agent the bare payload. */
        final boolean framed;
        volatile boolean aborted;
        boolean disconnected;

        NixlPeer(String peerId, RemoteAgent remote, long remoteList, boolean framed) {
            this.peerId = peerId;
            this.remote = remote;
            this.remoteList = remoteList;
            this.framed = framed;
        }

        /** What this peer receives of {@code n}: the frame, or for a plain NIXL agent the payload alone. */
        byte[] message(OutboundNotification n) {
            return framed ? n.frame() : n.payload();
        }

        @Override
        public String toString() {
            return "peer '" + peerId + "' (NIXL agent '" + remote.name + "')";
        }
    }

    @Override
    public Object connect(String peerId, PeerDescriptor peer) {
        ensureOpen();
        NixlMetadata md = NixlMetadata.parse(peer.metadata());
        if (md.agentName().equals(agentName) || (md.nonce() == nonce && md.framed())) {
            throw new IncompatiblePeerException("peer '" + peerId + "' is this transport's own NIXL agent '"
                    + agentName + "'");
        }
        long bytes = Math.multiplyExact((long) peer.numBlocks(), peer.blockLength());
        NixlMetadata.Region holder = md.dramRegionHolding(peer.baseAddress(), bytes).orElseThrow(
                () -> new IncompatiblePeerException("descriptor of peer '" + peerId + "' claims " + peer.numBlocks()
                        + " x " + peer.blockLength() + " B at 0x" + Long.toHexString(peer.baseAddress())
                        + ", which is not inside memory the peer registered with NIXL: " + md.regions()));
        LocalAgents.Fence targetFence = md.framed() ? LocalAgents.find(md.nonce(), md.pid(), pid) : null;
        if (targetFence != null && targetFence.isClosed()) {
            throw new PeerRegistrationException("peer '" + peerId + "' is unreachable: its transport in this JVM"
                    + " is closed");
        }
        RemoteAgent remote = remotes.acquire(peerId, md, targetFence);
        long list;
        try {
            list = agent.prepare(remote.name, peer.baseAddress(), peer.blockLength(), peer.numBlocks(),
                    holder.deviceId());
        } catch (NixlException | IllegalStateException e) {
            remotes.release(remote);
            throw new PeerRegistrationException("preparing the " + peer.numBlocks() + " blocks of peer '" + peerId
                    + "' failed: " + e.getMessage(), e);
        }
        notifications.connected(remote.name, peerId);
        return new NixlPeer(peerId, remote, list, md.framed());
    }

    /** Marks a remote agent dead after a native error on one of its transfers, and invalidates it. */
    private void markDead(RemoteAgent remote, String cause) {
        remotes.markDead(remote, cause);
    }

    @Override
    public void abort(Object peerHandle) {
        NixlPeer peer = (NixlPeer) peerHandle;
        peer.aborted = true;
        remotes.abort(peer.remote, "connection aborted (peer '" + peer.peerId + "' removed, replaced or past its"
                + " deadline)");
    }

    @Override
    public void disconnect(Object peerHandle) {
        NixlPeer peer = (NixlPeer) peerHandle;
        synchronized (lifecycleLock) {
            if (peer.disconnected) {
                return;
            }
            peer.disconnected = true;
        }
        if (!agent.isClosed()) {
            int status = agent.releasePrepared(peer.remoteList);
            if (status != NixlStatus.SUCCESS) {
                LOG.log(Level.DEBUG, () -> this + ": " + NixlStatus.describe("nixl_capi_release_xfer_dlist_handle("
                        + peer + ")", status));
            }
        }
        notifications.disconnected(peer.remote.name, peer.peerId);
        remotes.release(peer.remote);
    }

    // ------------------------------------------------------------------ transfers

    @Override
    public Object submit(long transferId, Object peerHandle, TransferOp op, int[] localBlocks, int[] remoteBlocks) {
        return post(transferId, (NixlPeer) peerHandle, op, localBlocks, remoteBlocks, null);
    }

    /**
     * The message rides on the request ({@code make_xfer_req}'s optional arguments; the post passes
     * none, which keeps it): NIXL sends it once every byte is there, from the post when the
     * transfer ended inside it, else from the status check that sees it end, and never for a
     * failed transfer. A transfer still in flight after its post is also checked by the
     * notification thread, so that its message goes out even if the caller polls rarely.
     */
    @Override
    public Object submit(long transferId, Object peerHandle, TransferOp op, int[] localBlocks, int[] remoteBlocks,
            OutboundNotification notification) {
        NixlPeer peer = (NixlPeer) peerHandle;
        return post(transferId, peer, op, localBlocks, remoteBlocks, peer.message(notification));
    }

    private Object post(long transferId, NixlPeer peer, TransferOp op, int[] localBlocks, int[] remoteBlocks,
            byte @Nullable [] message) {
        RemoteAgent remote = peer.remote;
        LocalAgents.Fence target = enter(peer);
        boolean fenceHeld = target != null;
        try {
            int n = localBlocks.length;
            NixlScratch s = NixlScratch.get();
            s.ensure(n);
            MemorySegment.copy(localBlocks, 0, s.localIndices, JAVA_INT, 0, n);
            MemorySegment.copy(remoteBlocks, 0, s.remoteIndices, JAVA_INT, 0, n);
            MemorySegment out = s.out;
            out.set(JAVA_LONG, 0, 0L);
            MemorySegment opt = message == null ? NO_OPT_ARGS
                    : notifications.outbound().withMessage(s.message(message), message.length);
            int status;
            try {
                status = NixlNative.makeXferReq(agentHandle, op == TransferOp.WRITE ? NixlNative.OP_WRITE
                        : NixlNative.OP_READ, localList, s.localIndices, n, peer.remoteList, s.remoteIndices, n, out,
                        opt);
            } finally {
                if (message != null) {
                    notifications.outbound().give(opt);
                }
            }
            if (status != NixlStatus.SUCCESS) {
                if (status != NixlStatus.ERROR_INVALID_PARAM) {
                    markDead(remote, NixlStatus.describe("nixl_capi_make_xfer_req", status));
                }
                throw new NixlException("nixl_capi_make_xfer_req to " + peer, status);
            }
            long request = out.get(JAVA_LONG, 0);
            status = NixlNative.postXferReq(agentHandle, request, NO_OPT_ARGS);
            if (NixlStatus.isError(status)) {
                dispose(request);
                markDead(remote, NixlStatus.describe("nixl_capi_post_xfer_req", status));
                throw new NixlException("nixl_capi_post_xfer_req to " + peer, status);
            }
            NixlXfer x = pool.take().set(transferId, request, peer, op, n, fenceHeld, message != null);
            fenceHeld = false;
            if (status == NixlStatus.SUCCESS) {
                finish(x, status);
            } else if (message != null) {
                notifications.inFlight(x);
            }
            return x;
        } finally {
            if (fenceHeld && target != null) { // held only when there is a target fence
                target.exit();
            }
        }
    }

    @Override
    public int status(Object transfer) {
        NixlXfer x = (NixlXfer) transfer;
        if (x.notified) {
            // the notification thread may be checking it: one thread at a time, and a busy one is still pending
            if (!x.tryClaim()) {
                return PENDING;
            }
            try {
                return x.state != PENDING ? x.state : checkClaimed(x);
            } finally {
                x.unclaim();
            }
        }
        if (x.state != PENDING) {
            return x.state;
        }
        return checkClaimed(x);
    }

    /** Asks NIXL for the status of a transfer in flight that no other thread is checking. */
    private int checkClaimed(NixlXfer x) {
        int status = NixlNative.getXferStatus(agentHandle, x.request);
        if (status == NixlStatus.IN_PROG) {
            return PENDING;
        }
        return finish(x, status);
    }

    /**
     * Checks that {@code peer} can be sent to, and enters its fence if it is a transport of this JVM.
     *
     * @return the fence entered (exit it), or null
     * @throws IllegalStateException if the connection was aborted, the peer is dead or closed
     */
    private LocalAgents.@Nullable Fence enter(NixlPeer peer) {
        if (peer.aborted) {
            throw new IllegalStateException("the connection to " + peer + " was aborted; add the peer again");
        }
        String dead = peer.remote.deadCause;
        if (dead != null) {
            throw new IllegalStateException(peer + " is dead (" + dead + "); add the peer again");
        }
        LocalAgents.Fence target = peer.remote.fence;
        if (target != null && !target.enter()) {
            markDead(peer.remote, "its transport in this JVM closed");
            throw new IllegalStateException(peer + " is closed (a transport of this JVM)");
        }
        return target;
    }

    /** The fence a fenced transfer entered: its target's, which a fenced transfer always has. */
    private static LocalAgents.Fence heldFence(NixlXfer x) {
        return Objects.requireNonNull(x.peer.remote.fence, "a fenced transfer's target has a fence");
    }

    private int finish(NixlXfer x, int status) {
        if (x.fenced) {
            x.fenced = false;
            heldFence(x).exit();
        }
        if (status == NixlStatus.SUCCESS) {
            x.state = DONE;
            if (telemetry.capturing()) {
                telemetry.capture(agentHandle, x);
            }
        } else {
            x.state = FAILED;
            markDead(x.peer.remote, NixlStatus.describe("nixl_capi_get_xfer_status", status));
        }
        return x.state;
    }

    @Override
    public boolean nativeTelemetry(Object transfer, long[] out) {
        NixlXfer x = (NixlXfer) transfer;
        if (!x.measured) {
            return false;
        }
        out[0] = x.postMicros;
        out[1] = x.transferMicros;
        out[2] = x.bytes;
        out[3] = x.descriptors;
        return true;
    }

    @Override
    public void release(Object transfer) {
        NixlXfer x = (NixlXfer) transfer;
        if (x.fenced) {
            x.fenced = false;
            heldFence(x).exit();
        }
        int status = NixlNative.releaseXferReq(agentHandle, x.request);
        if (status != NixlStatus.SUCCESS) {
            synchronized (unreleased) {
                unreleased.add(x);
            }
            throw new NixlException("nixl_capi_release_xfer_req (kept for a retry at close)", status);
        }
        NixlNative.destroyXferReq(x.request);
        pool.give(x);
    }

    /** Releases a request that never became a transfer (its post failed, so it is terminal). */
    private void dispose(long request) {
        if (NixlNative.releaseXferReq(agentHandle, request) == NixlStatus.SUCCESS) {
            NixlNative.destroyXferReq(request);
        }
    }

    // ------------------------------------------------------------------ notifications

    /**
     * Starts receiving: the agent's messages are drained by every {@link #progress()} and by the
     * engine's notification thread ({@link NotificationPump}), and handed to {@code sink}.
     */
    @Override
    public boolean bindNotificationSink(NotificationSink sink) {
        ensureOpen();
        notifications.bind(sink);
        return true;
    }

    /** Drains the agent's notifications on the calling thread, unless another thread is doing so. */
    @Override
    public int progress() {
        return notifications.drain();
    }

    @Override
    public void callersWaiting(boolean waiting) {
        notifications.callersWaiting(waiting);
    }

    /** {@code gen_notif} of the frame (or, to a plain NIXL agent, the payload) to the peer's agent. */
    @Override
    public void sendNotification(Object peerHandle, OutboundNotification notification) {
        NixlPeer peer = (NixlPeer) peerHandle;
        LocalAgents.Fence target = enter(peer);
        try {
            notifications.outbound().send(peer.remote.name, peer.message(notification));
        } finally {
            if (target != null) {
                target.exit();
            }
        }
    }

    // ------------------------------------------------------------------ lifecycle

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("NIXL engine '" + agentName + "' is closed");
        }
    }

    @Override
    public void close(boolean leaked) {
        synchronized (lifecycleLock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        notifications.close(closeTimeoutNanos);
        // transports of this JVM that still write into our region must finish first
        boolean drained = fence.closeAndDrain(closeTimeoutNanos);
        LocalAgents.unregister(nonce, fence);
        if (!drained) {
            LOG.log(Level.WARNING, "{0}: transfers from other transports of this JVM still target this region after"
                    + " the close timeout; its memory and registration are left allocated", this);
        }
        List<NixlXfer> retry;
        synchronized (unreleased) {
            retry = new ArrayList<>(unreleased);
            unreleased.clear();
        }
        for (NixlXfer x : retry) {
            if (NixlNative.getXferStatus(agentHandle, x.request) != NixlStatus.IN_PROG
                    && NixlNative.releaseXferReq(agentHandle, x.request) == NixlStatus.SUCCESS) {
                NixlNative.destroyXferReq(x.request);
            } else {
                leaked = true;
            }
        }
        remotes.closeAll("transport closed");
        if (leaked || !drained) {
            LOG.log(Level.WARNING, "{0}: closing with transfers NIXL still runs: the agent, its registration and the"
                    + " region stay allocated so that no late byte lands in freed memory", this);
            return;
        }
        agent.releasePrepared(localList);
        int status = agent.deregister(registration);
        if (status != NixlStatus.SUCCESS) {
            LOG.log(Level.WARNING, () -> this + ": " + NixlStatus.describe("nixl_capi_deregister_mem", status));
        }
        int destroyed = agent.destroy();
        if (destroyed != NixlStatus.SUCCESS) {
            LOG.log(Level.WARNING, () -> this + ": " + NixlStatus.describe("nixl_capi_destroy_agent", destroyed));
        }
        if (regionArena != null) {
            regionArena.close();
        }
    }

    @Override
    public String toString() {
        return "NIXL engine '" + agentName + "'";
    }
}
