package io.blockxfer.cli.internal;

import io.blockxfer.transport.TransferOp;

/**
 * Measures what the link to a remote target can do without any backend: a plain TCP stream of
 * exactly the blocks the transfers move, in the transfers' direction, and memcpy of those blocks on
 * the target's host.
 *
 * <p><b>Thread safety:</b> not thread-safe; for the measuring thread.
 */
public interface WireProbe {

    /**
     * Streams the blocks of {@code plan} over one TCP connection for about {@code nanos}: from the
     * initiator's local blocks into the target's remote blocks for a {@code WRITE}, the other way
     * for a {@code READ}.
     */
    Rate stream(TransferOp op, SlotPlan plan, long blockBytes, long nanos);

    /** Copies the blocks of {@code plan} with memcpy on the target's host for about {@code nanos}. */
    Rate remoteMemcpy(TransferOp op, SlotPlan plan, long blockBytes, long nanos);

    /**
     * The CPU time the target's process has used so far (all its threads, the backend's native ones
     * included), or -1 where it cannot be told; the bench reads it before and after transfers.
     */
    default long targetCpuNanos() {
        return -1;
    }

    /**
     * Bytes moved in a time.
     *
     * <p><b>Thread safety:</b> immutable.
     *
     * @param bytes bytes moved
     * @param nanos time taken
     */
    record Rate(long bytes, long nanos) {

        /** Nothing yet. */
        public static final Rate NONE = new Rate(0, 0);

        /** This and {@code other} together. */
        public Rate plus(Rate other) {
            return new Rate(bytes + other.bytes, nanos + other.nanos);
        }

        /** Bytes per nanosecond, which is GB/s; NaN when nothing was measured. */
        public double gbPerSec() {
            return nanos <= 0 ? Double.NaN : (double) bytes / nanos;
        }
    }
}
