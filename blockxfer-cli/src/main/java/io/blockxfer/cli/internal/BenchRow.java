package io.blockxfer.cli.internal;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One measured point of {@code blockxfer bench}.
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param backend the provider name
 * @param op {@code write} or {@code read}
 * @param processes 1 (both peers here) or 2 (target in a child process)
 * @param layout how local and remote blocks were paired
 * @param blockBytes the block size
 * @param batchBlocks blocks per transfer
 * @param window transfers kept in flight
 * @param transfers transfers reported done while measuring
 * @param failed transfers reported failed while measuring
 * @param seconds time spent measuring transfers
 * @param gbPerSec bytes of done transfers per second, in 10^9
 * @param memcpyGbPerSec {@code MemorySegment.copy} of the same blocks, in 10^9 bytes per second
 * @param transfersPerSec done transfers per second
 * @param p50Micros median submit-to-report latency of a transfer
 * @param p99Micros 99th percentile of that latency
 * @param maxMicros the largest latency
 */
public record BenchRow(String backend, String op, int processes, String layout, long blockBytes, int batchBlocks,
        int window, long transfers, long failed, double seconds, double gbPerSec, double memcpyGbPerSec,
        double transfersPerSec, double p50Micros, double p99Micros, double maxMicros) {

    /** {@link #gbPerSec()} over {@link #memcpyGbPerSec()}. */
    public double ratio() {
        return memcpyGbPerSec == 0 ? 0 : gbPerSec / memcpyGbPerSec;
    }

    /** The row as an ordered map for JSON and CSV. */
    public Map<String, Object> fields() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("backend", backend);
        m.put("op", op);
        m.put("processes", processes);
        m.put("layout", layout);
        m.put("blockBytes", blockBytes);
        m.put("batchBlocks", batchBlocks);
        m.put("window", window);
        m.put("transfers", transfers);
        m.put("failed", failed);
        m.put("seconds", seconds);
        m.put("gbPerSec", gbPerSec);
        m.put("memcpyGbPerSec", memcpyGbPerSec);
        m.put("ratio", ratio());
        m.put("transfersPerSec", transfersPerSec);
        m.put("blocksPerSec", transfersPerSec * batchBlocks);
        m.put("p50Micros", p50Micros);
        m.put("p99Micros", p99Micros);
        m.put("maxMicros", maxMicros);
        return m;
    }
}
