package io.blockxfer.loopback.internal;

import io.blockxfer.loopback.LoopbackFaults;
import io.blockxfer.loopback.LoopbackProvider;
import io.blockxfer.transport.BlockRegion;
import io.blockxfer.transport.IncompatiblePeerException;
import io.blockxfer.transport.MalformedPeerDescriptorException;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PeerRegistrationException;
import io.blockxfer.transport.ProgressMode;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.internal.memory.MemoryBudget;
import io.blockxfer.transport.spi.CompletionSignal;
import io.blockxfer.transport.spi.NotificationSink;
import io.blockxfer.transport.spi.OutboundNotification;
import io.blockxfer.transport.spi.TransferEngine;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The loopback {@link TransferEngine}: owns the region and a {@link CopyWorker}, publishes an
 * endpoint id and a random nonce as its metadata, and resolves peers through the
 * {@link LoopbackDirectory}. Implements {@link LoopbackFaults}.
 *
 * <p>Progress: with {@link ProgressMode#POLLING_THREAD} (and {@link ProgressMode#AUTO}, which
 * picks it: a copy is cheapest on the thread that is about to read its state, and no second
 * thread then competes for a core) every poll does the queued copies itself when no other thread
 * is doing them, and the worker thread only takes what polls leave behind; with
 * {@link ProgressMode#BACKEND_THREAD} the worker does every copy. A full queue slows the
 * submitting thread (for at most the transfer timeout) instead of failing the transfer.
 *
 * <p>Completion signal: whoever finishes copies (a polling thread or the worker) fires it, so
 * waiting callers wake; while callers wait the worker copies at once in every mode.
 *
 * <p>Notifications: a transfer's notification is handed to the target engine's sink by the thread
 * that copied its bytes, right after the copy and before the transfer is reported done; a message
 * without a transfer is handed over by the sending thread (held back while the target is stalled,
 * until it thaws). Faults can delay them, or deliver them before the bytes on purpose.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class LoopbackEngine implements TransferEngine, LoopbackFaults {

    private static final int MAGIC = 0x314b424c; // "LBK1"
    private static final int METADATA_BYTES = 24;
    private static final AtomicLong ENDPOINT_IDS = new AtomicLong();
    private static final SecureRandom NONCES = new SecureRandom();

    private final String agentName;
    private final boolean pollersDrive;
    private final int workerSpins;
    private final long fallbackNanos;
    private final long queueWaitNanos;
    private final long endpointId = ENDPOINT_IDS.incrementAndGet();
    private final long nonce = NONCES.nextLong();
    /** Null when the region is the caller's memory. */
    private final @Nullable Arena arena;
    private final BlockRegion region;
    private final ArrayDeque<CopyJob> pool = new ArrayDeque<>();
    private final AtomicInteger failNext = new AtomicInteger();
    private volatile long delayNanos;
    private volatile long notificationDelayNanos;
    private volatile long notificationLeadNanos;
    private volatile @Nullable NotificationSink sink;
    /** Messages sent to this engine while it was stalled, delivered when it thaws. */
    private final List<byte[]> heldMessages = new ArrayList<>();
    private final List<String> heldSenders = new ArrayList<>();
    private volatile boolean stalled;
    private volatile boolean killed;
    private volatile boolean closed;
    private volatile CompletionSignal signal = () -> { };
    private volatile boolean callersWaiting;
    /** Started on the first submit. */
    private volatile @Nullable CopyWorker worker;

    /**
     * Opens an engine over the config's region.
     *
     * @throws io.blockxfer.transport.InsufficientMemoryException if the region to allocate does not
     *     fit this host ({@link MemoryBudget}); nothing is allocated then
     */
    public LoopbackEngine(TransportConfig config) {
        this(config, CopyWorker.DEFAULT_SPINS, CopyWorker.DEFAULT_FALLBACK_NANOS);
    }

    /**
     * Opens an engine with the worker tuned: {@code workerSpins} idle rounds before the copying
     * worker parks, {@code fallbackNanos} that the fallback worker leaves work to polling threads.
     */
    LoopbackEngine(TransportConfig config, int workerSpins, long fallbackNanos) {
        this.agentName = config.agentName();
        this.pollersDrive = config.progressMode() != ProgressMode.BACKEND_THREAD;
        this.workerSpins = workerSpins;
        this.fallbackNanos = fallbackNanos;
        this.queueWaitNanos = config.transferTimeout().toNanos();
        RegionSpec spec = config.region();
        if (spec.callerMemory().isPresent()) {
            this.arena = null;
            this.region = new BlockRegion(spec.callerMemory().get(), spec.numBlocks(), spec.blockLength(),
                    BlockRegion.Ownership.CALLER);
        } else {
            MemoryBudget.check(spec.byteSize());
            this.arena = Arena.ofShared();
            MemorySegment memory = arena.allocate(spec.byteSize(), 64);
            this.region = new BlockRegion(memory, spec.numBlocks(), spec.blockLength(), BlockRegion.Ownership.BACKEND);
        }
        LoopbackDirectory.register(this);
    }

    long endpointId() {
        return endpointId;
    }

    MemorySegment regionSegment() {
        return region.segment();
    }

    long blockLength() {
        return region.blockLength();
    }

    boolean isStalled() {
        return stalled;
    }

    boolean isClosed() {
        return closed;
    }

    String agentName() {
        return agentName;
    }

    long notificationDelayNanos() {
        return notificationDelayNanos;
    }

    long notificationLeadNanos() {
        return notificationLeadNanos;
    }

    /** A message reached this engine (as a target); null sink: the transport never bound one. */
    void notificationArrived(byte[] message, String sender) {
        NotificationSink s = sink;
        if (s != null && !closed && !killed) {
            s.received(message, null, sender);
        }
    }

    @Override
    public String backendName() {
        return LoopbackProvider.NAME;
    }

    @Override
    public BlockRegion region() {
        return region;
    }

    @Override
    public byte[] agentMetadata() {
        return ByteBuffer.allocate(METADATA_BYTES).order(ByteOrder.LITTLE_ENDIAN)
                .putInt(MAGIC).putInt(1).putLong(endpointId).putLong(nonce).array();
    }

    @Override
    public Object connect(String peerId, PeerDescriptor peer) {
        if (killed) {
            throw new PeerRegistrationException("loopback transport '" + agentName + "' was killed");
        }
        byte[] metadata = peer.metadata();
        if (metadata.length != METADATA_BYTES) {
            throw new MalformedPeerDescriptorException("loopback metadata of peer '" + peerId + "' has "
                    + metadata.length + " bytes, expected " + METADATA_BYTES);
        }
        ByteBuffer buf = ByteBuffer.wrap(metadata).order(ByteOrder.LITTLE_ENDIAN);
        int magic = buf.getInt();
        int version = buf.getInt();
        if (magic != MAGIC || version != 1) {
            throw new MalformedPeerDescriptorException("loopback metadata of peer '" + peerId
                    + "' has a bad magic or version: 0x" + Integer.toHexString(magic) + " v" + version);
        }
        long id = buf.getLong();
        long peerNonce = buf.getLong();
        LoopbackEngine target = LoopbackDirectory.find(id);
        if (target == null || target.nonce != peerNonce || target.closed) {
            throw new PeerRegistrationException("peer '" + peerId + "' is unreachable: no live loopback transport"
                    + " with endpoint " + id + " in this JVM (closed, killed, or in another process)");
        }
        if (target.killed) {
            throw new PeerRegistrationException("peer '" + peerId + "' is unreachable: its transport was killed");
        }
        BlockRegion r = target.region;
        if (peer.baseAddress() != r.baseAddress() || peer.numBlocks() > r.numBlocks()
                || peer.blockLength() != r.blockLength()) {
            throw new IncompatiblePeerException("descriptor of peer '" + peerId + "' (" + peer.numBlocks() + " x "
                    + peer.blockLength() + " B at 0x" + Long.toHexString(peer.baseAddress())
                    + ") does not match its region " + r);
        }
        return new LoopbackPeer(peerId, target, peer.numBlocks());
    }

    @Override
    public Object submit(long transferId, Object peer, TransferOp op, int[] localBlocks, int[] remoteBlocks) {
        return submit(peer, op, localBlocks, remoteBlocks, null);
    }

    @Override
    public Object submit(long transferId, Object peer, TransferOp op, int[] localBlocks, int[] remoteBlocks,
            OutboundNotification notification) {
        return submit(peer, op, localBlocks, remoteBlocks, Objects.requireNonNull(notification, "notification"));
    }

    @Override
    public boolean bindNotificationSink(NotificationSink sink) {
        this.sink = sink;
        return true;
    }

    @Override
    public void sendNotification(Object peer, OutboundNotification notification) {
        LoopbackPeer p = (LoopbackPeer) peer;
        if (killed) {
            throw new IllegalStateException("loopback transport '" + agentName + "' was killed");
        }
        if (p.aborted) {
            throw new IllegalStateException("connection to peer '" + p.peerId + "' was aborted; re-add the peer");
        }
        LoopbackEngine target = p.target;
        if (target.killed || target.closed) {
            throw new IllegalStateException("peer '" + p.peerId + "' is unreachable: its transport was "
                    + (target.killed ? "killed" : "closed"));
        }
        synchronized (target.heldMessages) {
            if (target.stalled) {
                target.heldMessages.add(notification.frame());
                target.heldSenders.add(agentName);
                return;
            }
        }
        target.notificationArrived(notification.frame(), agentName);
    }

    private Object submit(Object peer, TransferOp op, int[] localBlocks, int[] remoteBlocks,
            @Nullable OutboundNotification notification) {
        LoopbackPeer p = (LoopbackPeer) peer;
        if (killed) {
            throw new IllegalStateException("loopback transport '" + agentName + "' was killed");
        }
        if (p.aborted) {
            throw new IllegalStateException("connection to peer '" + p.peerId + "' was aborted; re-add the peer");
        }
        if (failNext.get() > 0 && failNext.getAndDecrement() > 0) {
            throw new IllegalStateException("injected submit failure");
        }
        CopyJob job = take();
        long delay = delayNanos;
        job.fill(p, op, localBlocks, remoteBlocks, delay == 0 ? 0 : (System.nanoTime() + delay) | 1, notification);
        if (!worker().offer(job, queueWaitNanos)) {
            recycle(job);
            throw new IllegalStateException("loopback queue stayed full for the transfer timeout");
        }
        return job;
    }

    @Override
    public int progress() {
        CopyWorker w = worker;
        return w == null ? 0 : w.progressOnCaller();
    }

    @Override
    public boolean bindCompletionSignal(CompletionSignal signal) {
        this.signal = signal;
        CopyWorker w = worker;
        if (w != null) {
            w.signal(signal);
        }
        return true;
    }

    @Override
    public void callersWaiting(boolean waiting) {
        CopyWorker w;
        synchronized (this) {
            callersWaiting = waiting;
            w = worker;
        }
        if (w != null) {
            w.callersWaiting(waiting);
        }
    }

    /** How many jobs polling threads took from the queue so far (0 before the first submit). */
    long takenByCallers() {
        CopyWorker w = worker;
        return w == null ? 0 : w.takenByCallers();
    }

    @Override
    public int status(Object transfer) {
        return ((CopyJob) transfer).status;
    }

    @Override
    public void release(Object transfer) {
        recycle((CopyJob) transfer);
    }

    @Override
    public void abort(Object peer) {
        ((LoopbackPeer) peer).aborted = true;
        CopyWorker w = worker;
        if (w != null) {
            w.wake();
        }
    }

    @Override
    public void disconnect(Object peer) {
        ((LoopbackPeer) peer).aborted = true;
    }

    @Override
    public void close(boolean leaked) {
        closed = true;
        LoopbackDirectory.unregister(this);
        CopyWorker w;
        synchronized (this) {
            w = worker;
        }
        if (w != null) {
            w.stop();
        }
        if (arena != null && !leaked) {
            arena.close();
        }
    }

    @Override
    public <T> Optional<T> feature(Class<T> type) {
        return type == LoopbackFaults.class ? Optional.of(type.cast(this)) : Optional.empty();
    }

    private CopyWorker worker() {
        CopyWorker w = worker;
        if (w == null) {
            synchronized (this) {
                w = worker;
                if (w == null) {
                    if (closed) {
                        throw new IllegalStateException("loopback transport closed");
                    }
                    w = new CopyWorker(this, "blockxfer-loopback-" + agentName, pollersDrive, workerSpins,
                            fallbackNanos, signal, callersWaiting);
                    worker = w;
                }
            }
        }
        return w;
    }

    private CopyJob take() {
        synchronized (pool) {
            CopyJob job = pool.pollFirst();
            return job != null ? job : new CopyJob();
        }
    }

    private void recycle(CopyJob job) {
        job.clear();
        synchronized (pool) {
            if (pool.size() < 4096) {
                pool.addFirst(job);
            }
        }
    }

    // ------------------------------------------------------------------ LoopbackFaults

    @Override
    public void failNextSubmits(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("count must not be negative: " + count);
        }
        failNext.set(count);
    }

    @Override
    public void stall(boolean stalled) {
        List<byte[]> messages;
        List<String> senders;
        synchronized (heldMessages) {
            this.stalled = stalled;
            if (stalled || heldMessages.isEmpty()) {
                return;
            }
            messages = new ArrayList<>(heldMessages);
            senders = new ArrayList<>(heldSenders);
            heldMessages.clear();
            heldSenders.clear();
        }
        for (int i = 0; i < messages.size(); i++) {
            notificationArrived(messages.get(i), senders.get(i));
        }
    }

    @Override
    public void delayNotifications(Duration delay) {
        notificationDelayNanos = nonNegative(delay).toNanos();
    }

    @Override
    public void notifyBeforeData(Duration lead) {
        notificationLeadNanos = nonNegative(lead).toNanos();
    }

    private static Duration nonNegative(Duration d) {
        Objects.requireNonNull(d, "duration");
        if (d.isNegative()) {
            throw new IllegalArgumentException("duration must not be negative: " + d);
        }
        return d;
    }

    @Override
    public void kill() {
        killed = true;
        LoopbackDirectory.unregister(this);
        CopyWorker w = worker;
        if (w != null) {
            w.wake();
        }
    }

    @Override
    public boolean isKilled() {
        return killed;
    }

    @Override
    public void delayCompletions(Duration delay) {
        Objects.requireNonNull(delay, "delay");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("delay must not be negative: " + delay);
        }
        delayNanos = delay.toNanos();
    }

    @Override
    public String toString() {
        return "loopback engine '" + agentName + "' #" + endpointId;
    }
}
