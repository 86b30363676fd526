package io.blockxfer.ucx.internal;

import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.spi.TransferEngine;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * One transfer: its peer, direction, block index pairs, and state. Pooled by the engine, so its
 * index arrays are reused and a steady stream of transfers allocates nothing per block.
 *
 * <p><b>Thread safety:</b> filled by the submitting thread before it is queued; afterwards only the
 * owner of the loop's worker writes it, and {@link #status} (volatile, written last) hands the
 * outcome to pollers. The engine recycles it only after {@link #status} is terminal, when the loop
 * no longer holds it.
 */
final class UcxTransfer implements LoopCommand {

    @Nullable UcxPeer peer;
    @Nullable TransferOp op;
    int[] localBlocks = new int[8];
    int[] remoteBlocks = new int[8];
    int count;
    /** The notification frame to send once the bytes are visible at the peer, or null. */
    byte @Nullable [] notification;
    /** Counts fills: a late notification callback of an earlier use of this pooled object finds another. */
    volatile int epoch;
    /** The fills so far; written by the one thread that fills this object at a time. */
    private int fills;
    volatile int status = TransferEngine.PENDING;

    // ---- owner of the loop's worker only
    boolean linked;
    @Nullable UcxTransfer prev;
    @Nullable UcxTransfer next;
    @Nullable OpCallback callback;

    void fill(UcxPeer peer, TransferOp op, int[] local, int[] remote, byte @Nullable [] notification) {
        if (localBlocks.length < local.length) {
            int n = Math.max(local.length, localBlocks.length * 2);
            localBlocks = Arrays.copyOf(local, n);
            remoteBlocks = Arrays.copyOf(remote, n);
        } else {
            System.arraycopy(local, 0, localBlocks, 0, local.length);
            System.arraycopy(remote, 0, remoteBlocks, 0, remote.length);
        }
        this.peer = peer;
        this.op = op;
        this.count = local.length;
        this.notification = notification;
        this.epoch = ++fills; // before the status, which late callbacks read first
        this.status = TransferEngine.PENDING;
    }

    void clear() {
        peer = null;
        op = null;
        callback = null;
        notification = null;
    }

    @Override
    public void run(ProgressLoop loop) {
        loop.issue(this);
    }

    @Override
    public void reject(String why) {
        status = TransferEngine.FAILED;
    }
}
