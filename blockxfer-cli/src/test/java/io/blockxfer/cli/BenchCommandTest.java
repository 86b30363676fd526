package io.blockxfer.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchCommandTest {

    private static final Set<String> FIELDS = Set.of("backend", "op", "blockBytes", "batchBlocks", "gbPerSec",
            "memcpyGbPerSec", "transfersPerSec", "p50Micros", "p99Micros", "window", "ratio");

    @Test
    void jsonHasOneRowPerPointWithPositiveThroughput() {
        Cli.Result r = Cli.run("bench", "--json", "--block-sizes", "4K,16K", "--batches", "1,4", "--duration", "50ms");
        assertEquals(0, r.exitCode(), r::toString);
        List<Map<String, Object>> rows = MiniJson.parseObjects(r.out());
        assertEquals(8, rows.size(), r::toString);
        for (Map<String, Object> row : rows) {
            assertTrue(row.keySet().containsAll(FIELDS), () -> "missing fields in " + row);
            assertEquals("loopback", row.get("backend"));
            assertTrue(Set.of("write", "read").contains(row.get("op")), row::toString);
            assertTrue((Double) row.get("gbPerSec") > 0, row::toString);
            assertTrue((Double) row.get("memcpyGbPerSec") > 0, row::toString);
            assertTrue((Double) row.get("transfersPerSec") > 0, row::toString);
            assertTrue((Double) row.get("p99Micros") >= (Double) row.get("p50Micros"), row::toString);
        }
        assertEquals(Set.of(4096.0, 16384.0), Set.copyOf(rows.stream().map(m -> m.get("blockBytes")).toList()));
        assertEquals(Set.of(1.0, 4.0), Set.copyOf(rows.stream().map(m -> m.get("batchBlocks")).toList()));
    }

    @Test
    void aJfrRecordingOfTheRunHoldsTheTransfers(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("bench.jfr");
        Cli.Result r = Cli.run("bench", "--ops", "write", "--block-sizes", "4K", "--batches", "2", "--duration",
                "100ms", "--backend", "loopback", "--jfr", file.toString());
        assertEquals(0, r.exitCode(), r::toString);
        assertTrue(r.out().contains("JFR recording written to " + file), r::toString);
        List<jdk.jfr.consumer.RecordedEvent> events = jdk.jfr.consumer.RecordingFile.readAllEvents(file);
        List<jdk.jfr.consumer.RecordedEvent> completed = events.stream()
                .filter(e -> e.getEventType().getName().equals("blockxfer.TransferCompleted")).toList();
        assertTrue(completed.size() > 10, "completed transfers recorded: " + completed.size());
        jdk.jfr.consumer.RecordedEvent one = completed.get(0);
        assertEquals("loopback", one.getString("backend"));
        assertEquals("WRITE", one.getString("op"));
        assertEquals(2, one.getInt("blocks"));
        assertEquals(2 * 4096, one.getLong("bytes"));
        assertTrue(one.getDuration("latency").toNanos() > 0, one::toString);
        assertTrue(events.stream().anyMatch(e -> e.getEventType().getName().equals("blockxfer.PeerRegistration")
                && "published".equals(e.getString("outcome"))), "a published peer registration is recorded");
    }

    @Test
    void tableCsvAndChart(@TempDir Path dir) throws Exception {
        Path chart = dir.resolve("charts/bench.svg");
        Cli.Result table = Cli.run("bench", "--ops", "write", "--block-sizes", "8K,32K", "--batches", "2",
                "--duration", "30ms", "--backend", "loopback", "--chart", chart.toString(), "--poll", "spin");
        assertEquals(0, table.exitCode(), table::toString);
        assertTrue(table.out().contains("MEMCPY GB/s"), table::toString);
        assertEquals(2, table.out().lines().filter(l -> l.startsWith("loopback  write")).count(), table::toString);
        String svg = Files.readString(chart);
        assertTrue(svg.startsWith("<svg xmlns=\"http://www.w3.org/2000/svg\"") && svg.strip().endsWith("</svg>"), svg);
        assertEquals(2, svg.split("<polyline ").length - 1, svg);
        assertTrue(svg.contains(">loopback write x2</text>"), svg);

        Cli.Result csv = Cli.run("bench", "--csv", "--ops", "read", "--block-sizes", "4K", "--batches", "3",
                "--duration", "20ms", "--layout", "contiguous");
        assertEquals(0, csv.exitCode(), csv::toString);
        List<String> lines = csv.out().lines().toList();
        assertEquals(2, lines.size(), csv::toString);
        assertTrue(lines.get(0).startsWith("backend,op,"), csv::toString);
        assertTrue(lines.get(1).startsWith("loopback,read,1,contiguous,4096,3,"), csv::toString);
    }

    @Test
    void twoProcessesNeedACrossProcessBackend() {
        Cli.Result r = Cli.run("bench", "--processes", "2", "--duration", "10ms");
        assertEquals(2, r.exitCode(), r::toString);
        assertEquals(1, r.errLines().size(), r::toString);
        assertTrue(r.err().contains("CROSS_PROCESS"), r::toString);
    }
}
