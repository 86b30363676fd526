package io.blockxfer.cli.membership;

import io.blockxfer.transport.BlockRegion;
import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.CompletionHandler;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.TransferFuture;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The transport it wraps, telling (with the wall clock in microseconds) each time a membership
 * asks it to add or remove a peer: {@code add OBSERVER PEER T}, {@code remove OBSERVER PEER T}.
 *
 * <p><b>Thread safety:</b> thread-safe, as the transport it wraps and the consumer.
 */
final class TimedTransport implements DataTransport {

    private final DataTransport delegate;
    private final String observer;
    private final Consumer<String> tell;

    TimedTransport(DataTransport delegate, String observer, Consumer<String> tell) {
        this.delegate = delegate;
        this.observer = observer;
        this.tell = tell;
    }

    @Override public String backendName() { return delegate.backendName(); }
    @Override public String agentName() { return delegate.agentName(); }
    @Override public BlockRegion region() { return delegate.region(); }
    @Override public String configFingerprint() { return delegate.configFingerprint(); }
    @Override public byte[] agentMetadata() { return delegate.agentMetadata(); }
    @Override public PeerDescriptor localDescriptor() { return delegate.localDescriptor(); }

    @Override
    public void addPeer(String peerId, PeerDescriptor peer) {
        tell.accept("add " + observer + " " + peerId + " " + MembershipWorker.nowMicros());
        delegate.addPeer(peerId, peer);
    }

    @Override
    public CompletableFuture<Void> addPeerAsync(String peerId, PeerDescriptor peer) {
        tell.accept("add " + observer + " " + peerId + " " + MembershipWorker.nowMicros());
        return delegate.addPeerAsync(peerId, peer);
    }

    @Override
    public boolean removePeer(String peerId) {
        tell.accept("remove " + observer + " " + peerId + " " + MembershipWorker.nowMicros());
        return delegate.removePeer(peerId);
    }

    @Override public long writeBlocks(String p, int[] l, int[] r) { return delegate.writeBlocks(p, l, r); }
    @Override public long readBlocks(String p, int[] l, int[] r) { return delegate.readBlocks(p, l, r); }
    @Override public PollResult poll(String peerId) { return delegate.poll(peerId); }
    @Override public int poll(String peerId, CompletionHandler h) { return delegate.poll(peerId, h); }
    @Override public PollResult pollAll() { return delegate.pollAll(); }
    @Override public int pollAll(CompletionHandler h) { return delegate.pollAll(h); }
    @Override public TransferFuture writeBlocksAsync(String p, int[] l, int[] r) {
        return delegate.writeBlocksAsync(p, l, r);
    }
    @Override public TransferFuture readBlocksAsync(String p, int[] l, int[] r) {
        return delegate.readBlocksAsync(p, l, r);
    }
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
    @Override public long[] cancel(long[] ids, CancelMode mode) { return delegate.cancel(ids, mode); }
    @Override public <T> Optional<T> feature(Class<T> type) { return delegate.feature(type); }
    @Override public void close() { delegate.close(); }
}
