package io.blockxfer.tck.directory;

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
 * A transport that records every registration and removal a membership asks of it
 * ({@code "add b-1"}, {@code "remove b-1"}) and otherwise is the transport it wraps: so that a rule
 * can see what reached the transport.
 *
 * <p><b>Thread safety:</b> thread-safe, as the transport it wraps.
 */
final class RecordingTransport implements DataTransport {

    private final DataTransport delegate;
    private final List<String> calls = new ArrayList<>();

    RecordingTransport(DataTransport delegate) {
        this.delegate = delegate;
    }

    DataTransport delegate() {
        return delegate;
    }

    synchronized List<String> calls() {
        return List.copyOf(calls);
    }

    /** The calls about {@code peerId}. */
    List<String> calls(String peerId) {
        return calls().stream().filter(c -> c.endsWith(" " + peerId)).toList();
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
    @Override public long[] cancel(long[] ids, CancelMode mode) { return delegate.cancel(ids, mode); }
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
    @Override public <T> Optional<T> feature(Class<T> type) { return delegate.feature(type); }
    @Override public void close() { delegate.close(); }
}
