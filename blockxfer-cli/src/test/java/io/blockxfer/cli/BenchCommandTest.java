package io.blockxfer.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

class BenchCommandTest {

    private static final Set<String> FIELDS = Set.of("backend", "op", "placement", "poll", "progress", "hog",
            "blockBytes", "batchBlocks", "gbPerSec", "memcpyGbPerSec", "transfersPerSec", "p50Micros", "p99Micros",
            "p999Micros", "maxMicros", "cpuCores", "window", "ratio", "wireGbPerSec", "wireRatio", "cpuMicrosPerTransfer",
            "pacedTransfersPerSec", "targetCpuMicrosPerTransfer");

    @Test
    void jsonHasOneRowPerPointWithPositiveThroughputAndOrderedPercentiles() {
        Cli.Result r = Cli.run("bench", "--json", "--block-sizes", "4K,16K", "--batches", "1,4", "--duration", "50ms");
        assertEquals(0, r.exitCode(), r::toString);
        List<JsonNode> rows = JsonTree.rows(r.out());
        assertEquals(8, rows.size(), r::toString);
        assertEquals(0, JsonTree.report(r.out()).get("recommendations").size(), "one backend here: nothing to choose");
        for (JsonNode row : rows) {
            Set<String> names = row.propertyStream().map(java.util.Map.Entry::getKey).collect(Collectors.toSet());
            assertTrue(names.containsAll(FIELDS), () -> "missing fields in " + row);
            assertEquals("loopback", row.get("backend").stringValue());
            assertEquals("in-process", row.get("placement").stringValue());
            assertTrue(Set.of("write", "read").contains(row.get("op").stringValue()), row::toString);
            assertTrue(row.get("gbPerSec").asDouble() > 0, row::toString);
            assertTrue(row.get("memcpyGbPerSec").asDouble() > 0, row::toString);
            assertTrue(row.get("transfersPerSec").asDouble() > 0, row::toString);
            double p50 = row.get("p50Micros").asDouble();
            double p99 = row.get("p99Micros").asDouble();
            double p999 = row.get("p999Micros").asDouble();
            double max = row.get("maxMicros").asDouble();
            assertTrue(0 < p50 && p50 <= p99 && p99 <= p999 && p999 <= max * 1.001, row::toString);
            assertTrue(row.get("wireGbPerSec").isNull() && row.get("wireRatio").isNull(), "no wire in one process");
            assertTrue(row.get("pacedTransfersPerSec").isNull(), "not paced: " + row);
            assertTrue(row.get("targetCpuMicrosPerTransfer").isNull(), "no remote target: " + row);
            // CPU per transfer is the CPU time over the transfers, so it and the cores agree
            double cpuMicros = row.get("cpuMicrosPerTransfer").asDouble();
            double fromCores = row.get("cpuCores").asDouble() * row.get("seconds").asDouble() * 1e6
                    / row.get("transfers").asDouble();
            assertTrue(cpuMicros > 0 && Math.abs(cpuMicros - fromCores) <= 0.01 * fromCores + 0.01, row::toString);
        }
        assertEquals(Set.of(4096L, 16384L), Set.copyOf(rows.stream().map(m -> m.get("blockBytes").asLong()).toList()));
        assertEquals(Set.of(1, 4), Set.copyOf(rows.stream().map(m -> m.get("batchBlocks").asInt()).toList()));
    }

    @Test
    void eachPollStyleIsARowOfItsOwn() {
        Cli.Result r = Cli.run("bench", "--json", "--ops", "write", "--block-sizes", "4K", "--batches", "1",
                "--window", "1", "--duration", "40ms", "--poll", "spin,backoff,interval", "--poll-interval", "200us",
                "--progress", "polling");
        assertEquals(0, r.exitCode(), r::toString);
        List<JsonNode> rows = JsonTree.rows(r.out());
        assertEquals(List.of("spin", "backoff", "interval"), rows.stream().map(n -> n.get("poll").stringValue()).toList());
        for (JsonNode row : rows) {
            assertEquals("polling_thread", row.get("progress").stringValue(), row::toString);
            assertTrue(row.get("transfersPerSec").asDouble() > 0, row::toString);
        }
        // one transfer in flight, polled every 200 us: no more than one transfer per interval
        JsonNode interval = rows.get(2);
        assertTrue(interval.get("transfersPerSec").asDouble() < 1e6 / 200 * 1.2, interval::toString);
    }

    @Test
    void waitingJoiningAndCallbackCallersAreRowsOfTheirOwn() {
        Cli.Result r = Cli.run("bench", "--json", "--ops", "write,read", "--block-sizes", "4K", "--batches", "1",
                "--window", "4", "--duration", "40ms", "--poll", "wait,join,callback");
        assertEquals(0, r.exitCode(), r::toString);
        List<JsonNode> rows = JsonTree.rows(r.out());
        assertEquals(List.of("wait", "join", "callback", "wait", "join", "callback"), rows.stream()
                .map(n -> n.get("poll").stringValue()).toList());
        for (JsonNode row : rows) {
            assertTrue(row.get("transfersPerSec").asDouble() > 0, row::toString);
            assertTrue(row.get("failed").asLong() == 0, row::toString);
        }
    }

    @Test
    void aPacedRunSubmitsOnItsScheduleAndShowsTheRateAskedForBesideTheRateAchieved() {
        Cli.Result r = Cli.run("bench", "--json", "--ops", "write", "--block-sizes", "4K", "--batches", "1",
                "--window", "2", "--duration", "300ms", "--poll", "wait,spin", "--rate", "2000");
        assertEquals(0, r.exitCode(), r::toString);
        List<JsonNode> rows = JsonTree.rows(r.out());
        assertEquals(List.of("wait", "spin"), rows.stream().map(n -> n.get("poll").stringValue()).toList());
        for (JsonNode row : rows) {
            assertEquals(2000.0, row.get("pacedTransfersPerSec").asDouble(), row::toString);
            // unpaced, loopback does hundreds of thousands a second; paced, no more than the schedule allows
            // (one period's worth of slack at each end of each of the two measured rounds)
            double achieved = row.get("transfersPerSec").asDouble();
            assertTrue(achieved > 0 && achieved <= 2000 * 1.1, row::toString);
            assertTrue(row.get("cpuCores").asDouble() > 0 && row.get("cpuMicrosPerTransfer").asDouble() > 0,
                    row::toString);
        }
        Cli.Result table = Cli.run("bench", "--ops", "write", "--block-sizes", "4K", "--batches", "1", "--duration",
                "50ms", "--poll", "wait", "--rate", "1000");
        assertEquals(0, table.exitCode(), table::toString);
        String header = table.out().lines().filter(l -> l.startsWith("BACKEND")).findFirst().orElseThrow();
        for (String column : List.of("PACED/s", "TRANSFERS/s", "CPU", "CPU us/T")) {
            assertTrue(header.contains(column), () -> column + " missing from " + header);
        }
    }

    @Test
    void aHogRunsDuringTheRunAndIsNamedInEveryRow() {
        Cli.Result r = Cli.run("bench", "--json", "--ops", "write", "--block-sizes", "4K", "--batches", "1",
                "--duration", "30ms", "--hog");
        assertEquals(0, r.exitCode(), r::toString);
        List<JsonNode> rows = JsonTree.rows(r.out());
        assertEquals(1, rows.size(), r::toString);
        assertTrue(rows.getFirst().get("hog").booleanValue(), r::toString);
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
        String header = table.out().lines().filter(l -> l.startsWith("BACKEND")).findFirst().orElseThrow();
        for (String column : List.of("MEMCPY GB/s", "P50 us", "P99 us", "P99.9 us", "MAX us", "CPU", "CPU us/T",
                "POLL")) {
            assertTrue(header.contains(column), () -> column + " missing from " + header);
        }
        assertEquals(2, table.out().lines().filter(l -> l.startsWith("loopback  write  spin")).count(),
                table::toString);
        assertTrue(table.out().lines().noneMatch(l -> l.startsWith("recommendation:")), "one backend: no advice");
        assertTrue(!header.contains("PACED/s"), "not paced: no rate column");
        String svg = Files.readString(chart);
        assertTrue(svg.startsWith("<svg xmlns=\"http://www.w3.org/2000/svg\"") && svg.strip().endsWith("</svg>"), svg);
        assertEquals(2, svg.split("<polyline ").length - 1, svg);
        assertTrue(svg.contains(">loopback write x2</text>"), svg);

        Cli.Result csv = Cli.run("bench", "--csv", "--ops", "read", "--block-sizes", "4K", "--batches", "3",
                "--duration", "20ms", "--layout", "contiguous");
        assertEquals(0, csv.exitCode(), csv::toString);
        List<String> lines = csv.out().lines().toList();
        assertEquals(2, lines.size(), csv::toString);
        List<String> columns = List.of(lines.get(0).split(","));
        assertTrue(columns.containsAll(List.of("p50Micros", "p99Micros", "p999Micros", "maxMicros")), csv::toString);
        List<String> cells = List.of(lines.get(1).split(",", -1));
        assertEquals(columns.size(), cells.size(), csv::toString);
        assertTrue(lines.get(1).startsWith("loopback,read,in-process,1,contiguous,backoff,auto,false,4096,3,"),
                csv::toString);
        assertEquals("", cells.get(columns.indexOf("wireGbPerSec")), "not measured: empty");
        assertTrue(Double.parseDouble(cells.get(columns.indexOf("p999Micros"))) > 0, csv::toString);
    }

    @Test
    void twoProcessesNeedACrossProcessBackend() {
        Cli.Result r = Cli.run("bench", "--processes", "2", "--duration", "10ms");
        assertEquals(2, r.exitCode(), r::toString);
        assertEquals(1, r.errLines().size(), r::toString);
        assertTrue(r.err().contains("CROSS_PROCESS"), r::toString);
    }
}
