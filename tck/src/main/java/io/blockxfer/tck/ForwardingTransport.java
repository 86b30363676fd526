package io.blockxfer.tck;

import io.blockxfer.transport.BlockRegion;
import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.CompletionHandler;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.Notification;
import io.blockxfer.transport.NotificationHandler;
import io.blockxfer.transport.NotificationStats;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PeerTraffic;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.TransferFuture;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;

/**
 * A transport that forwards every call to the one it wraps, for decorators that override a few
 * calls: a recorder of what reached a transport, a transport broken on purpose (the kit's own
 * tests), a timer. Every method of {@link DataTransport}, defaults included, is forwarded, so a
 * subclass changes only what it overrides.
 *
 * <p><b>Thread safety:</b> as the transport it wraps; a subclass's own state is its own business.
 */
public class ForwardingTransport implements DataTransport {

    /** The transport every call goes to. */
    protected final DataTransport delegate;

    /**
     * Wraps {@code delegate}.
     *
     * @throws NullPointerException if {@code delegate} is null
     */
    public ForwardingTransport(DataTransport delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The transport every call goes to. */
    public final DataTransport delegate() {
        return delegate;
    }

    @Override public String backendName() { return delegate.backendName(); }
    @Override public String agentName() { return delegate.agentName(); }
    @Override public BlockRegion region() { return delegate.region(); }
    @Override public String configFingerprint() { return delegate.configFingerprint(); }
    @Override public byte[] agentMetadata() { return delegate.agentMetadata(); }
    @Override public PeerDescriptor localDescriptor() { return delegate.localDescriptor(); }
    @Override public void addPeer(String peerId, PeerDescriptor peer) { delegate.addPeer(peerId, peer); }
    @Override public CompletableFuture<Void> addPeerAsync(String peerId, PeerDescriptor peer) {
        return delegate.addPeerAsync(peerId, peer);
    }
    @Override public boolean removePeer(String peerId) { return delegate.removePeer(peerId); }
    @Override public Optional<PeerTraffic> traffic(String peerId) { return delegate.traffic(peerId); }
    @Override public long writeBlocks(String peerId, int[] l, int[] r) { return delegate.writeBlocks(peerId, l, r); }
    @Override public long readBlocks(String peerId, int[] l, int[] r) { return delegate.readBlocks(peerId, l, r); }
    @Override public PollResult poll(String peerId) { return delegate.poll(peerId); }
    @Override public int poll(String peerId, CompletionHandler h) { return delegate.poll(peerId, h); }
    @Override public PollResult pollAll() { return delegate.pollAll(); }
    @Override public int pollAll(CompletionHandler h) { return delegate.pollAll(h); }
    @Override public PollResult poll(String peerId, long timeout, TimeUnit unit) throws InterruptedException {
        return delegate.poll(peerId, timeout, unit);
    }
    @Override public int poll(String peerId, CompletionHandler h, long timeout, TimeUnit unit)
            throws InterruptedException {
        return delegate.poll(peerId, h, timeout, unit);
    }
    @Override public PollResult pollAll(long timeout, TimeUnit unit) throws InterruptedException {
        return delegate.pollAll(timeout, unit);
    }
    @Override public int pollAll(CompletionHandler h, long timeout, TimeUnit unit) throws InterruptedException {
        return delegate.pollAll(h, timeout, unit);
    }
    @Override public TransferFuture writeBlocksAsync(String peerId, int[] l, int[] r) {
        return delegate.writeBlocksAsync(peerId, l, r);
    }
    @Override public TransferFuture readBlocksAsync(String peerId, int[] l, int[] r) {
        return delegate.readBlocksAsync(peerId, l, r);
    }
    @Override public long writeBlocks(String peerId, int[] l, int[] r, byte[] n) {
        return delegate.writeBlocks(peerId, l, r, n);
    }
    @Override public long readBlocks(String peerId, int[] l, int[] r, byte[] n) {
        return delegate.readBlocks(peerId, l, r, n);
    }
    @Override public TransferFuture writeBlocksAsync(String peerId, int[] l, int[] r, byte[] n) {
        return delegate.writeBlocksAsync(peerId, l, r, n);
    }
    @Override public TransferFuture readBlocksAsync(String peerId, int[] l, int[] r, byte[] n) {
        return delegate.readBlocksAsync(peerId, l, r, n);
    }
    @Override public boolean sendNotification(String peerId, byte[] payload) {
        return delegate.sendNotification(peerId, payload);
    }
    @Override public int pollNotifications(NotificationHandler h) { return delegate.pollNotifications(h); }
    @Override public int pollNotifications(NotificationHandler h, long timeout, TimeUnit unit)
            throws InterruptedException {
        return delegate.pollNotifications(h, timeout, unit);
    }
    @Override public Flow.Publisher<Notification> notifications() { return delegate.notifications(); }
    @Override public NotificationStats notificationStats() { return delegate.notificationStats(); }
    @Override public long[] cancel(long[] ids, CancelMode mode) { return delegate.cancel(ids, mode); }
    @Override public <T> Optional<T> feature(Class<T> type) { return delegate.feature(type); }
    @Override public void close() { delegate.close(); }
}
