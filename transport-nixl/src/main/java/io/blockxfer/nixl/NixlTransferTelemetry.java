package io.blockxfer.nixl;

import io.blockxfer.transport.TransferOp;

/**
 * NIXL's telemetry of one finished transfer ({@code nixl_capi_get_xfer_telemetry}), with what
 * blockxfer knows about it.
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param sequence the transport's count of finished transfers when this one finished (0-based),
 *     in the order they were seen to finish
 * @param transferId the id {@code writeBlocks} or {@code readBlocks} returned for it
 * @param peerId the peer it went to or came from
 * @param op WRITE or READ
 * @param blocks how many block pairs it moved
 * @param startMicros when NIXL started it, on NIXL's steady clock in microseconds (not wall time;
 *     only differences between records mean something)
 * @param postMicros how long posting took, in microseconds (with shared-memory transports the copy
 *     itself may happen inside the post)
 * @param transferMicros how long the whole transfer took, in microseconds
 * @param bytes how many bytes it moved
 * @param descriptors how many descriptors NIXL used after merging contiguous runs
 */
public record NixlTransferTelemetry(long sequence, long transferId, String peerId, TransferOp op, int blocks, long startMicros,
        long postMicros, long transferMicros, long bytes, long descriptors) {
}
