package io.blockxfer.ucx.internal;

import io.blockxfer.transport.spi.TransferEngine;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Same-host transfers of a {@link ProgressLoop}: a transfer with a peer whose region is mapped in
 * this process (shared memory on one host, see {@link PeerMapping}) is a copy to or from that
 * mapping per contiguous run of blocks, done at once, with no UCX request. After a WRITE a full
 * fence orders its bytes before whatever this process stores next (the completion the caller
 * learns of, and then tells the peer about): on one host that is what UCX's own shared-memory put
 * and flush amount to, without a request.
 *
 * <p><b>Thread safety:</b> {@link #copy} by the owner of the loop's worker only; the counters are
 * written by that owner alone and read from any thread.
 */
final class MappedCopier {

    /** The loop's parts log under the loop's name. */
    private static final System.Logger LOG = System.getLogger(ProgressLoop.class.getName());

    private final String name;
    private final MemorySegment local;
    private final long blockLength;
    private final EndSignal ends;
    private final AmNotifications notifications;
    private final AtomicLong mappedReads = new AtomicLong();
    private final AtomicLong mappedWrites = new AtomicLong();

    /**
     * Copies between {@code local} and mapped peer regions, in blocks of {@code blockLength} bytes;
     * every transfer that ends is noted to {@code ends}.
     */
    MappedCopier(String name, MemorySegment local, long blockLength, EndSignal ends, AmNotifications notifications) {
        this.name = name;
        this.notifications = notifications;
        this.local = local;
        this.blockLength = blockLength;
        this.ends = ends;
    }

    /** Does {@code t} as a copy per run to ({@code write}) or from {@code mapped}, and ends it. */
    void copy(MemorySegment mapped, UcxTransfer t, boolean write) {
        int[] l = t.localBlocks;
        int[] r = t.remoteBlocks;
        int n = t.count;
        try {
            int i = 0;
            while (i < n) {
                int run = 1;
                while (i + run < n && l[i + run] == l[i] + run && r[i + run] == r[i] + run) {
                    run++;
                }
                if (write) {
                    MemorySegment.copy(local, l[i] * blockLength, mapped, r[i] * blockLength, run * blockLength);
                } else {
                    MemorySegment.copy(mapped, r[i] * blockLength, local, l[i] * blockLength, run * blockLength);
                }
                i += run;
            }
            // counters for tests: only the owner writes them, so a plain add and an ordered store
            // suffice (no locked instruction on the hot path)
            if (write) {
                VarHandle.fullFence();
                mappedWrites.setRelease(mappedWrites.getPlain() + 1);
            } else {
                mappedReads.setRelease(mappedReads.getPlain() + 1);
            }
            if (t.notification != null) {
                if (!notified(t)) {
                    t.status = TransferEngine.FAILED;
                    ends.ended();
                }
                return; // done once UCX is done with its notification (AmNotifications)
            }
            t.status = TransferEngine.DONE;
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, name + ": copying a " + t.op + (write ? " to" : " from") + " the mapped region of "
                    + t.peer + " failed", e);
            t.status = TransferEngine.FAILED;
        }
        ends.ended();
    }

    /**
     * Sends the transfer's notification after its bytes (the fence above); false when UCX did not
     * take it, so that the transfer fails instead of ending done unannounced.
     */
    private boolean notified(UcxTransfer t) {
        UcxPeer p = t.peer;
        PeerEndpoint pe = p == null ? null : p.writes;
        return pe != null && notifications.sendFor(pe.endpoint, t);
    }

    /** How many READs were copies from a peer's mapped region (for tests). */
    long reads() {
        return mappedReads.getAcquire();
    }

    /** How many WRITEs were copies to a peer's mapped region (for tests). */
    long writes() {
        return mappedWrites.getAcquire();
    }
}
