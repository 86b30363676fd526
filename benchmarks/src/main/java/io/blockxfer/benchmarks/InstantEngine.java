package io.blockxfer.benchmarks;

import io.blockxfer.transport.BlockRegion;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.TransferEngine;
import java.lang.foreign.Arena;

/**
 * A benchmark fixture: an engine whose transfers are done when submitted. It moves no bytes, so a
 * benchmark over it prices the transport layer alone.
 *
 * <p><b>Thread safety:</b> thread-safe: it keeps no state but its region, fixed at construction.
 */
class InstantEngine implements TransferEngine {

    private static final Object DONE_TRANSFER = new Object();
    private final Arena arena = Arena.ofShared();
    private final BlockRegion region;

    InstantEngine(TransportConfig config) {
        region = new BlockRegion(arena.allocate(config.region().byteSize()), config.region().numBlocks(),
                config.region().blockLength(), BlockRegion.Ownership.BACKEND);
    }

    @Override
    public String backendName() {
        return "instant";
    }

    @Override
    public final BlockRegion region() {
        return region;
    }

    @Override
    public final byte[] agentMetadata() {
        return new byte[0];
    }

    @Override
    public final Object connect(String peerId, PeerDescriptor peer) {
        return peerId;
    }

    @Override
    public final Object submit(long transferId, Object peer, TransferOp op, int[] localBlocks, int[] remoteBlocks) {
        return DONE_TRANSFER;
    }

    @Override
    public final int status(Object transfer) {
        return DONE;
    }

    @Override
    public final void release(Object transfer) {
    }

    @Override
    public final void abort(Object peer) {
    }

    @Override
    public final void disconnect(Object peer) {
    }

    @Override
    public final void close(boolean leaked) {
        if (!leaked) {
            arena.close();
        }
    }
}
