package io.blockxfer.cli.internal;

import java.lang.foreign.MemorySegment;

/**
 * The ceiling a benchmark compares against: {@link MemorySegment#copy} of exactly the blocks the
 * transfers move, slot after slot, one copy per block pair, on the measuring thread.
 *
 * <p><b>Thread safety:</b> not thread-safe; confined to the measuring thread.
 */
public final class MemcpyLoop {

    private final MemorySegment source;
    private final MemorySegment destination;
    private final boolean sourceIsLocal;
    private final SlotPlan plan;
    private final long blockBytes;
    private long bytes;
    private long elapsedNanos;

    /**
     * Copies local blocks to remote ones ({@code write}) or remote blocks to local ones, between
     * {@code local} and {@code remote} of blocks of {@code blockBytes}.
     */
    public MemcpyLoop(MemorySegment local, MemorySegment remote, boolean write, SlotPlan plan, long blockBytes) {
        this.source = write ? local : remote;
        this.destination = write ? remote : local;
        this.sourceIsLocal = write;
        this.plan = plan;
        this.blockBytes = blockBytes;
    }

    /** Copies whole slots until {@code nanos} have passed (at least one slot); adds to the totals. */
    public void run(long nanos) {
        long start = System.nanoTime();
        long now;
        int s = 0;
        do {
            int[] from = sourceIsLocal ? plan.local(s) : plan.remote(s);
            int[] to = sourceIsLocal ? plan.remote(s) : plan.local(s);
            for (int i = 0; i < from.length; i++) {
                MemorySegment.copy(source, from[i] * blockBytes, destination, to[i] * blockBytes, blockBytes);
            }
            bytes += from.length * blockBytes;
            s = s + 1 == plan.window() ? 0 : s + 1;
            now = System.nanoTime();
        } while (now - start < nanos);
        elapsedNanos += now - start;
    }

    /** Forgets the totals (after a warm-up). */
    public void reset() {
        bytes = 0;
        elapsedNanos = 0;
    }

    /** Bytes copied so far. */
    public long bytes() {
        return bytes;
    }

    /** Time spent copying so far. */
    public long elapsedNanos() {
        return elapsedNanos;
    }

    /** Bytes copied per nanosecond, which is GB/s. */
    public double gbPerSec() {
        return elapsedNanos == 0 ? 0 : (double) bytes / elapsedNanos;
    }
}
