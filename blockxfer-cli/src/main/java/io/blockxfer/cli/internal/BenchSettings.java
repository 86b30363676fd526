package io.blockxfer.cli.internal;

import io.blockxfer.transport.TransferOp;
import java.time.Duration;
import java.util.List;

/**
 * What {@code blockxfer bench} sweeps: backends, operations, block sizes and batch sizes, with the
 * window of transfers in flight (0 for automatic), the time per point, the placement of the target
 * and the memory limit (0 for the default).
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param backends provider names, or {@code auto} or {@code all}
 * @param ops the operations
 * @param blockSizes block sizes in bytes
 * @param batches blocks per transfer
 * @param window transfers in flight, or 0 to size it from {@link MemoryBudget#autoWindow}
 * @param duration measuring time per point
 * @param processes 1 or 2
 * @param layout block pairing
 * @param poll what the poller does between empty polls
 * @param maxMemoryBytes the most region memory a point may use, or 0 for the default
 */
public record BenchSettings(List<String> backends, List<TransferOp> ops, List<Long> blockSizes, List<Integer> batches,
        int window, Duration duration, int processes, BlockLayout layout, IdleStrategy poll,
        long maxMemoryBytes) {

    /** Copies the lists. */
    public BenchSettings {
        backends = List.copyOf(backends);
        ops = List.copyOf(ops);
        blockSizes = List.copyOf(blockSizes);
        batches = List.copyOf(batches);
    }
}
