package io.blockxfer.loopback.internal;

import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.spi.OutboundNotification;
import io.blockxfer.transport.spi.TransferEngine;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * One loopback transfer: its peer, direction, block indices, and state. Pooled by its engine, so
 * the index arrays are reused.
 *
 * <p><b>Thread safety:</b> filled by the submitting thread before it is queued; afterwards only
 * the worker writes it, and {@link #status} is the volatile hand-over to pollers.
 */
final class CopyJob {

    /** Null while the job is pooled. */
    @Nullable LoopbackPeer peer;
    @Nullable TransferOp op;
    int[] localBlocks = new int[8];
    int[] remoteBlocks = new int[8];
    int count;
    long notBeforeNanos;
    boolean copied;
    /** The notification to deliver to the target after the bytes, or null. */
    @Nullable OutboundNotification notification;
    /** When the bytes were copied (for a notification delay), and whether it was delivered. */
    long copiedAtNanos;
    boolean notified;
    volatile int status = TransferEngine.PENDING;

    void fill(LoopbackPeer peer, TransferOp op, int[] local, int[] remote, long notBeforeNanos,
            @Nullable OutboundNotification notification) {
        this.peer = peer;
        this.op = op;
        if (localBlocks.length < local.length) {
            localBlocks = Arrays.copyOf(local, local.length);
            remoteBlocks = Arrays.copyOf(remote, remote.length);
        } else {
            System.arraycopy(local, 0, localBlocks, 0, local.length);
            System.arraycopy(remote, 0, remoteBlocks, 0, remote.length);
        }
        this.count = local.length;
        this.notBeforeNanos = notBeforeNanos;
        this.copied = false;
        this.notification = notification;
        this.notified = false;
        this.status = TransferEngine.PENDING;
    }

    void clear() {
        peer = null;
        op = null;
        notification = null;
    }
}
