package io.blockxfer.transport.testing;

import io.blockxfer.transport.BlockRegion;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.TransferEngine;
import java.lang.foreign.Arena;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A transfer engine that records every call into it by name, and fails the test with an
 * {@link AssertionError} if {@code connect} is called while {@link #connectAllowed} is false.
 * Transfers complete at once. Not a backend: it moves no bytes.
 */
public final class RecordingEngine implements TransferEngine {

    private final Arena arena = Arena.ofShared();
    private final BlockRegion region;
    private final String backend;
    /** Every call, in order: "connect p", "submit", "status", ... */
    public final List<String> calls = new CopyOnWriteArrayList<>();
    public volatile boolean connectAllowed;

    public RecordingEngine(String backend, TransportConfig config) {
        this.backend = backend;
        this.region = new BlockRegion(arena.allocate(config.region().byteSize()), config.region().numBlocks(),
                config.region().blockLength(), BlockRegion.Ownership.BACKEND);
    }

    /** The calls to {@code connect}. */
    public List<String> connects() {
        return calls.stream().filter(c -> c.startsWith("connect")).toList();
    }

    @Override
    public String backendName() {
        return backend;
    }

    @Override
    public BlockRegion region() {
        return region;
    }

    @Override
    public byte[] agentMetadata() {
        return new byte[] {7, 7, 7};
    }

    @Override
    public Object connect(String peerId, PeerDescriptor peer) {
        calls.add("connect " + peerId);
        if (!connectAllowed) {
            throw new AssertionError("connect(" + peerId + ") was called for a descriptor that must be rejected first");
        }
        return "peer:" + peerId;
    }

    @Override
    public Object submit(long transferId, Object peer, TransferOp op, int[] localBlocks, int[] remoteBlocks) {
        calls.add("submit");
        return new Object();
    }

    @Override
    public int status(Object transfer) {
        calls.add("status");
        return DONE;
    }

    @Override
    public void release(Object transfer) {
        calls.add("release");
    }

    @Override
    public void abort(Object peer) {
        calls.add("abort");
    }

    @Override
    public void disconnect(Object peer) {
        calls.add("disconnect");
    }

    @Override
    public void close(boolean leaked) {
        calls.add("close");
        if (!leaked) {
            arena.close();
        }
    }

    @Override
    public int progress() {
        calls.add("progress");
        return 0;
    }
}
