package io.blockxfer.multihost;

import io.blockxfer.transport.TransferOp;

/**
 * One transfer a {@link PeerSession} has in flight: its direction, blocks, the pattern seeds the
 * remote blocks hold afterwards (WRITE) or must hold (READ), and when it was submitted.
 *
 * <p><b>Thread safety:</b> immutable record, but the arrays are owned by the session thread.
 *
 * @param op the direction
 * @param local the local block of each pair
 * @param remote the remote block of each pair
 * @param seeds the pattern seed of each pair
 * @param readBack whether this READ verifies a completed WRITE
 * @param submitNanos {@link System#nanoTime()} at submit
 */
@SuppressWarnings("ArrayRecordComponent") // a carrier of one transfer's blocks, never compared or hashed
record Transfer(TransferOp op, int[] local, int[] remote, long[] seeds, boolean readBack, long submitNanos) {
}
