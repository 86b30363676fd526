package io.blockxfer.cli.internal;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One measured point of {@code blockxfer bench}.
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param backend the provider name
 * @param op {@code write} or {@code read}
 * @param placement where the target lived: {@code in-process}, {@code child-process} or {@code remote}
 * @param layout how local and remote blocks were paired
 * @param poll the caller's loop: {@code spin}, {@code backoff} or {@code interval}
 * @param progress the transports' {@link io.blockxfer.transport.ProgressMode}, in lower case
 * @param hog whether a CPU hog ran on every core of this host
 * @param blockBytes the block size
 * @param batchBlocks blocks per transfer
 * @param window transfers kept in flight
 * @param transfers transfers reported done while measuring
 * @param failed transfers reported failed while measuring
 * @param seconds time spent measuring transfers
 * @param gbPerSec bytes of done transfers per second, in 10^9
 * @param memcpyGbPerSec {@code MemorySegment.copy} of the same blocks in this process, in 10^9 bytes per second
 * @param transfersPerSec done transfers per second
 * @param p50Micros median submit-to-report latency of a transfer
 * @param p99Micros 99th percentile of that latency
 * @param p999Micros 99.9th percentile of that latency
 * @param maxMicros the largest latency
 * @param cpuCores CPU time of this process (all its threads, Java and native) while transfers were
 *     measured, over the wall time (in cores); for in-process points it includes the target's
 *     threads, for child-process and remote points it is the initiator's process only
 * @param wireGbPerSec a plain TCP stream of the same blocks between the two hosts, or NaN when the
 *     target was not remote
 * @param remoteMemcpyGbPerSec memcpy of the same blocks on the target host, or NaN when not remote
 * @param cpuMicrosPerTransfer the same CPU time over the transfers reported done, in microseconds;
 *     NaN where the JDK does not report process CPU time
 * @param pacedTransfersPerSec the submission rate asked for ({@code --rate}), or NaN when the window
 *     was kept full; {@link #transfersPerSec()} is the rate achieved
 * @param targetCpuMicrosPerTransfer CPU time of the target's process (all its threads) while
 *     transfers were measured, over the transfers reported done, in microseconds; NaN unless the
 *     target was remote and its server reports its CPU time
 * @param notified when every transfer carried a notification ({@code --notify}), what the target saw
 *     of them; null for transfers without one
 */
public record BenchRow(String backend, String op, String placement, String layout, String poll, String progress,
        boolean hog, long blockBytes, int batchBlocks, int window, long transfers, long failed, double seconds,
        double gbPerSec, double memcpyGbPerSec, double transfersPerSec, double p50Micros, double p99Micros,
        double p999Micros, double maxMicros, double cpuCores, double wireGbPerSec, double remoteMemcpyGbPerSec,
        double cpuMicrosPerTransfer, double pacedTransfersPerSec, double targetCpuMicrosPerTransfer,
        @Nullable NotifyFigures notified) {

    /** A row of transfers without notifications. */
    public BenchRow(String backend, String op, String placement, String layout, String poll, String progress,
            boolean hog, long blockBytes, int batchBlocks, int window, long transfers, long failed, double seconds,
            double gbPerSec, double memcpyGbPerSec, double transfersPerSec, double p50Micros, double p99Micros,
            double p999Micros, double maxMicros, double cpuCores, double wireGbPerSec, double remoteMemcpyGbPerSec,
            double cpuMicrosPerTransfer, double pacedTransfersPerSec, double targetCpuMicrosPerTransfer) {
        this(backend, op, placement, layout, poll, progress, hog, blockBytes, batchBlocks, window, transfers, failed,
                seconds, gbPerSec, memcpyGbPerSec, transfersPerSec, p50Micros, p99Micros, p999Micros, maxMicros,
                cpuCores, wireGbPerSec, remoteMemcpyGbPerSec, cpuMicrosPerTransfer, pacedTransfersPerSec,
                targetCpuMicrosPerTransfer, null);
    }

    /** {@link #gbPerSec()} over {@link #memcpyGbPerSec()}. */
    public double ratio() {
        return memcpyGbPerSec == 0 ? 0 : gbPerSec / memcpyGbPerSec;
    }

    /** {@link #gbPerSec()} over the TCP ceiling {@link #wireGbPerSec()}; NaN when that was not measured. */
    public double wireRatio() {
        return Double.isNaN(wireGbPerSec) || wireGbPerSec == 0 ? Double.NaN : gbPerSec / wireGbPerSec;
    }

    /** 1 when both peers were in this process, else 2. */
    public int processes() {
        return placement.equals(Placement.IN_PROCESS.label()) ? 1 : 2;
    }

    /** Whether the target was on another host (or at least behind the bench control channel). */
    public boolean remote() {
        return placement.equals(Placement.REMOTE.label());
    }

    /** Whether transfers were submitted on a fixed schedule ({@code --rate}). */
    public boolean paced() {
        return !Double.isNaN(pacedTransfersPerSec);
    }

    /** Whether every transfer of this row carried a notification. */
    public boolean notifies() {
        return notified != null;
    }

    /**
     * Transfers per second with a notification on every transfer over the same point without
     * ({@link NotifyFigures#plainTransfersPerSec()}); NaN for a row without notifications.
     */
    public double vsPlain() {
        NotifyFigures n = notified;
        return n == null || !(n.plainTransfersPerSec() > 0) ? Double.NaN : transfersPerSec / n.plainTransfersPerSec();
    }

    /** The target's median notification latency over the initiator's median latency; NaN without notifications. */
    public double notifyP50OverP50() {
        NotifyFigures n = notified;
        return n == null || !(p50Micros > 0) ? Double.NaN : n.p50Micros() / p50Micros;
    }

    /**
     * The row as an ordered map for JSON and CSV; numbers rounded to six significant digits. Fields
     * added later come last, so CSV columns keep their places.
     */
    public Map<String, Object> fields() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("backend", backend);
        m.put("op", op);
        m.put("placement", placement);
        m.put("processes", processes());
        m.put("layout", layout);
        m.put("poll", poll);
        m.put("progress", progress);
        m.put("hog", hog);
        m.put("blockBytes", blockBytes);
        m.put("batchBlocks", batchBlocks);
        m.put("window", window);
        m.put("transfers", transfers);
        m.put("failed", failed);
        m.put("seconds", JsonOutput.measured(seconds));
        m.put("gbPerSec", JsonOutput.measured(gbPerSec));
        m.put("memcpyGbPerSec", JsonOutput.measured(memcpyGbPerSec));
        m.put("ratio", JsonOutput.measured(ratio()));
        m.put("transfersPerSec", JsonOutput.measured(transfersPerSec));
        m.put("blocksPerSec", JsonOutput.measured(transfersPerSec * batchBlocks));
        m.put("p50Micros", JsonOutput.measured(p50Micros));
        m.put("p99Micros", JsonOutput.measured(p99Micros));
        m.put("p999Micros", JsonOutput.measured(p999Micros));
        m.put("maxMicros", JsonOutput.measured(maxMicros));
        m.put("cpuCores", JsonOutput.measured(cpuCores));
        m.put("wireGbPerSec", JsonOutput.measured(wireGbPerSec));
        m.put("wireRatio", JsonOutput.measured(wireRatio()));
        m.put("remoteMemcpyGbPerSec", JsonOutput.measured(remoteMemcpyGbPerSec));
        m.put("cpuMicrosPerTransfer", JsonOutput.measured(cpuMicrosPerTransfer));
        m.put("pacedTransfersPerSec", JsonOutput.measured(pacedTransfersPerSec));
        m.put("targetCpuMicrosPerTransfer", JsonOutput.measured(targetCpuMicrosPerTransfer));
        NotifyFigures n = notified;
        m.put("notify", n != null);
        m.put("notifications", n == null ? null : n.notifications());
        m.put("notifyP50Micros", n == null ? null : JsonOutput.measured(n.p50Micros()));
        m.put("notifyP99Micros", n == null ? null : JsonOutput.measured(n.p99Micros()));
        m.put("notifyP50OverP50", JsonOutput.measured(notifyP50OverP50()));
        m.put("vsPlain", JsonOutput.measured(vsPlain()));
        m.put("clockErrorMicros", n == null ? null : JsonOutput.measured(n.clockErrorMicros()));
        m.put("notificationsDropped", n == null ? null : n.dropped());
        return m;
    }
}
