package io.blockxfer.membership;

import io.blockxfer.transport.BlockRegion;
import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.CompletionHandler;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.TransferFuture;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A real transport that records every registration and removal asked of it ({@code "add b"},
 * {@code "remove b"}) before passing it on, so that a test can see what reached the transport and
 * its native library; everything else is the transport it wraps.
 *
 * <p><b>Thread safety:</b> thread-safe, as the transport it wraps.
 */
final class RecordedTransport implements DataTransport {

    private final DataTransport delegate;
    private final List<String> calls = new ArrayList<>();

    RecordedTransport(DataTransport delegate) {
        this.delegate = delegate;
    }

    /** Every registration and removal so far, in order. */
    synchronized List<String> calls() {
        return List.copyOf(calls);
    }

    private synchronized void record(String call) {
        calls.add(call);
    }

    @Override public String backendName() { return delegate.backendName(); }
    @Override public String agentName() { return delegate.agentName(); }
    @Override public BlockRegion region() { return delegate.region(); }
    @Override public String configFingerprint() { return delegate.configFingerprint(); }
    @Override public byte[] agentMetadata() { return delegate.agentMetadata(); }
    @Override public PeerDescriptor localDescriptor() { return delegate.localDescriptor(); }

    @Override
    public void addPeer(String peerId, PeerDescriptor peer) {
        record("add " + peerId);
        delegate.addPeer(peerId, peer);
    }

    @Override
    public CompletableFuture<Void> addPeerAsync(String peerId, PeerDescriptor peer) {
        record("add " + peerId);
        return delegate.addPeerAsync(peerId, peer);
    }

    @Override
    public boolean removePeer(String peerId) {
        record("remove " + peerId);
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
