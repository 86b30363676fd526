package io.blockxfer.cli.internal;

/**
 * What a row of {@code bench --notify} measured beyond a plain row: every transfer carried a
 * notification, and the target counted and timed them.
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param notifications the notifications of the measured transfers that reached the target (equal
 *     to the transfers reported done when each arrived exactly once)
 * @param dropped notifications the target's transport dropped while the rows' runs were measured,
 *     its queue full because the thread taking them fell behind
 * @param p50Micros median latency from the submit to the notification's arrival at the target
 * @param p99Micros 99th percentile of that latency
 * @param clockErrorMicros how far those latencies may be off through the clocks alone: 0 on one
 *     host, else the bound of the estimated offset between the hosts' clocks and its drift
 * @param plainTransfersPerSec transfers per second of the same point and caller without
 *     notifications, measured interleaved with this row's in the same run
 */
public record NotifyFigures(long notifications, long dropped, double p50Micros, double p99Micros, double clockErrorMicros,
        double plainTransfersPerSec) {
}
