package io.blockxfer.nixl.internal;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.blockxfer.nixl.NixlTelemetry;
import io.blockxfer.nixl.NixlTransferTelemetry;
import io.blockxfer.transport.TransferOp;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The {@link NixlTelemetry} of one engine: a ring of the last records in parallel primitive
 * arrays, and running totals. {@link #record} allocates nothing and never waits: if another thread
 * holds the ring, the record is skipped and counted.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
final class TelemetryRing implements NixlTelemetry {

    private final boolean capturing;
    private final int capacity;
    private final ReentrantLock lock = new ReentrantLock();
    private final long[] sequence;
    private final long[] ids;
    private final String[] peer;
    private final TransferOp[] op;
    private final int[] blocks;
    private final long[] start;
    private final long[] post;
    private final long[] xfer;
    private final long[] bytes;
    private final long[] descs;
    private final AtomicLong skipped = new AtomicLong();
    private long count;
    private long totalBytes;
    private long totalDescs;
    private long totalPost;
    private long totalXfer;
    private long maxXfer;

    TelemetryRing(boolean capturing, int capacity) {
        this.capturing = capturing;
        this.capacity = capacity;
        int n = capturing ? capacity : 0;
        sequence = new long[n];
        ids = new long[n];
        peer = new String[n];
        op = new TransferOp[n];
        blocks = new int[n];
        start = new long[n];
        post = new long[n];
        xfer = new long[n];
        bytes = new long[n];
        descs = new long[n];
    }

    /**
     * Reads NIXL's telemetry of a transfer that completed into {@code x} ({@code get_xfer_telemetry})
     * and records it.
     */
    void capture(MemorySegment agent, NixlXfer x) {
        MemorySegment t = NixlScratch.get().telemetry;
        if (NixlNative.getXferTelemetry(agent, x.request, t) == NixlStatus.SUCCESS) {
            x.postMicros = t.get(JAVA_LONG, 8);
            x.transferMicros = t.get(JAVA_LONG, 16);
            x.bytes = t.get(JAVA_LONG, 24);
            x.descriptors = t.get(JAVA_LONG, 32);
            x.measured = true;
            record(x.id, x.peer.peerId, x.op, x.blocks, t.get(JAVA_LONG, 0), x.postMicros, x.transferMicros, x.bytes,
                    x.descriptors);
        }
    }

    /** Records one finished transfer from NIXL's telemetry struct values. */
    void record(long transferId, String peerId, TransferOp operation, int blockCount, long startUs, long postUs, long xferUs,
            long totalBytesMoved, long descCount) {
        if (!capturing) {
            return;
        }
        if (!lock.tryLock()) {
            skipped.incrementAndGet();
            return;
        }
        try {
            int i = (int) (count % capacity);
            sequence[i] = count;
            ids[i] = transferId;
            peer[i] = peerId;
            op[i] = operation;
            blocks[i] = blockCount;
            start[i] = startUs;
            post[i] = postUs;
            xfer[i] = xferUs;
            bytes[i] = totalBytesMoved;
            descs[i] = descCount;
            count++;
            totalBytes += totalBytesMoved;
            totalDescs += descCount;
            totalPost += postUs;
            totalXfer += xferUs;
            if (xferUs > maxXfer) {
                maxXfer = xferUs;
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean capturing() {
        return capturing;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public List<NixlTransferTelemetry> recent(int max) {
        if (max < 0) {
            throw new IllegalArgumentException("max must not be negative: " + max);
        }
        List<NixlTransferTelemetry> out = new ArrayList<>();
        if (!capturing) {
            return out;
        }
        lock.lock();
        try {
            long n = Math.min(Math.min(count, capacity), max);
            for (long k = 0; k < n; k++) {
                int i = (int) ((count - 1 - k) % capacity);
                out.add(new NixlTransferTelemetry(sequence[i], ids[i], peer[i], op[i], blocks[i], start[i],
                        post[i], xfer[i], bytes[i], descs[i]));
            }
        } finally {
            lock.unlock();
        }
        return out;
    }

    @Override
    public java.util.Optional<NixlTransferTelemetry> find(long transferId) {
        if (!capturing) {
            return java.util.Optional.empty();
        }
        lock.lock();
        try {
            long n = Math.min(count, capacity);
            for (long k = 0; k < n; k++) {
                int i = (int) ((count - 1 - k) % capacity);
                if (ids[i] == transferId) {
                    return java.util.Optional.of(new NixlTransferTelemetry(sequence[i], ids[i], peer[i], op[i],
                            blocks[i], start[i], post[i], xfer[i], bytes[i], descs[i]));
                }
            }
            return java.util.Optional.empty();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Totals totals() {
        lock.lock();
        try {
            return new Totals(count, totalBytes, totalDescs, totalPost, totalXfer, maxXfer, skipped.get());
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void reset() {
        lock.lock();
        try {
            count = 0;
            totalBytes = 0;
            totalDescs = 0;
            totalPost = 0;
            totalXfer = 0;
            maxXfer = 0;
            skipped.set(0);
            java.util.Arrays.fill(peer, null);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "NixlTelemetry[" + (capturing ? "capturing, " + totals() : "off") + "]";
    }
}
