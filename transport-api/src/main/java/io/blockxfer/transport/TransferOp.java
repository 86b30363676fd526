package io.blockxfer.transport;

/**
 * The direction of a one-sided transfer, seen from the initiator.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public enum TransferOp {
    /** Local blocks are copied into the peer's blocks. */
    WRITE,
    /** The peer's blocks are copied into local blocks. */
    READ
}
