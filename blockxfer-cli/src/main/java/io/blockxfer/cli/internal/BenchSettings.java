package io.blockxfer.cli.internal;

import io.blockxfer.transport.TransferOp;
import java.time.Duration;
import java.util.List;

/**
 * What {@code blockxfer bench} sweeps: backends, operations, block sizes, batch sizes and the
 * caller's poll styles, with the window of transfers in flight (0 for automatic), the time per
 * point, the block pairing, the poll interval of {@link PollStyle#INTERVAL}, how transports are
 * tuned, whether a CPU hog runs, the memory limit (0 for the default), the paced submission
 * rate (0 for none: the window is kept full), and whether every point is also measured with a
 * notification on every transfer.
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param backends provider names, or {@code auto} or {@code all}
 * @param ops the operations
 * @param blockSizes block sizes in bytes
 * @param batches blocks per transfer
 * @param window transfers in flight, or 0 to size it from {@link MemoryBudget#autoWindow}
 * @param duration measuring time per point and poll style
 * @param layout block pairing
 * @param polls the caller loops to measure, each point with each
 * @param pollInterval the period of {@link PollStyle#INTERVAL}
 * @param tuning progress mode and backend options of every transport
 * @param hog whether a CPU hog runs on every core of this host
 * @param maxMemoryBytes the most region memory a point may use here, or 0 for the default
 * @param rate transfers submitted per second on a fixed schedule ({@link Pacer}), or 0 to keep the
 *     window full
 * @param withNotifications whether each caller loop is also measured with a notification on every transfer,
 *     interleaved with the loop without ({@code --notify}), on the backends that carry them
 * @param notifyTaker how the target's thread takes those notifications ({@code --notify-take})
 */
public record BenchSettings(List<String> backends, List<TransferOp> ops, List<Long> blockSizes, List<Integer> batches,
        int window, Duration duration, BlockLayout layout, List<PollStyle> polls, Duration pollInterval, Tuning tuning,
        boolean hog, long maxMemoryBytes, double rate, boolean withNotifications, TakerStyle notifyTaker) {

    /** Copies the lists. */
    public BenchSettings {
        backends = List.copyOf(backends);
        ops = List.copyOf(ops);
        blockSizes = List.copyOf(blockSizes);
        batches = List.copyOf(batches);
        polls = List.copyOf(polls);
    }
}
