package io.blockxfer.benchmarks;

import io.blockxfer.transport.BlockRegion;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.NotificationSink;
import io.blockxfer.transport.spi.OutboundNotification;
import io.blockxfer.transport.spi.TransferEngine;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A benchmark fixture: an engine that moves no bytes (its transfers are done when submitted), keeps
 * the notification frames its transport sends, and holds the sink its transport receives them
 * through, so that a benchmark can hand one transport's frames to another's receive path alone.
 *
 * <p><b>Thread safety:</b> for one benchmark thread.
 */
final class FrameEngine implements TransferEngine {

    private static final Object DONE_TRANSFER = new Object();
    private final Arena arena = Arena.ofShared();
    private final BlockRegion region;
    private final List<byte[]> sent = new ArrayList<>();
    private @Nullable NotificationSink sink;

    FrameEngine(TransportConfig config) {
        region = new BlockRegion(arena.allocate(config.region().byteSize()), config.region().numBlocks(),
                config.region().blockLength(), BlockRegion.Ownership.BACKEND);
    }

    /** The sink of this engine's transport: its receive path. */
    NotificationSink sink() {
        NotificationSink s = sink;
        if (s == null) {
            throw new IllegalStateException("the transport did not bind its notification sink");
        }
        return s;
    }

    /** The frames sent since the last call, in order. */
    byte[][] takeSent() {
        byte[][] frames = sent.toArray(byte[][]::new);
        sent.clear();
        return frames;
    }

    @Override
    public boolean bindNotificationSink(NotificationSink sink) {
        this.sink = sink;
        return true;
    }

    @Override
    public void sendNotification(Object peer, OutboundNotification notification) {
        sent.add(notification.frame());
    }

    @Override
    public String backendName() {
        return "frames";
    }

    @Override
    public BlockRegion region() {
        return region;
    }

    @Override
    public byte[] agentMetadata() {
        return new byte[0];
    }

    @Override
    public Object connect(String peerId, PeerDescriptor peer) {
        return peerId;
    }

    @Override
    public Object submit(long transferId, Object peer, TransferOp op, int[] localBlocks, int[] remoteBlocks) {
        return DONE_TRANSFER;
    }

    @Override
    public int status(Object transfer) {
        return DONE;
    }

    @Override
    public void release(Object transfer) {
    }

    @Override
    public void abort(Object peer) {
    }

    @Override
    public void disconnect(Object peer) {
    }

    @Override
    public void close(boolean leaked) {
        if (!leaked) {
            arena.close();
        }
    }
}
