package io.blockxfer.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecommendationsTest {

    private static BenchRow row(String backend, String placement, String poll, long blockBytes, double gbPerSec,
            double memcpy, double wire) {
        return new BenchRow(backend, "write", placement, "shuffled", poll, "auto", false, blockBytes, 64, 4, 100, 0, 1,
                gbPerSec, memcpy, 100, 1, 2, 3, 4, 0.5, wire, Double.NaN, 5, Double.NaN, Double.NaN);
    }

    @Test
    void oneBackendOnOneHostHasNothingToRecommend() {
        assertEquals(List.of(), Recommendations.of(List.of(row("loopback", "in-process", "backoff", 4096, 5, 10,
                Double.NaN))));
    }

    @Test
    void theFastestBackendOfEachGroupAgainstTheTcpCeiling() {
        List<Recommendation> recs = Recommendations.of(List.of(
                row("nixl", "remote", "backoff", 262144, 1.5, 10, 3.0),
                row("ucx", "remote", "backoff", 262144, 2.7, 10, 3.0),
                row("ucx", "remote", "backoff", 2 << 20, 2.0, 10, 2.5)));
        assertEquals(2, recs.size());
        Recommendation first = recs.getFirst();
        assertEquals("write 256 KiB x 64: ucx 2.70 GB/s, 1.80x nixl, 0.90x of the TCP ceiling (3.00 GB/s)",
                first.line());
        Map<String, Object> f = first.fields();
        assertEquals(List.of("op", "blockBytes", "batchBlocks", "poll", "progress", "hog", "backend", "gbPerSec",
                "runnerUp", "runnerUpGbPerSec", "timesRunnerUp", "others", "ceiling", "ceilingGbPerSec", "ofCeiling",
                "line"), List.copyOf(f.keySet()));
        assertEquals("ucx", f.get("backend"));
        assertEquals(2.7, f.get("gbPerSec"));
        assertEquals("nixl", f.get("runnerUp"));
        assertEquals(1.8, f.get("timesRunnerUp"));
        assertEquals(List.of(Map.of("backend", "nixl", "gbPerSec", 1.5, "times", 1.8)), f.get("others"));
        assertEquals("tcp", f.get("ceiling"));
        assertEquals(3.0, f.get("ceilingGbPerSec"));
        assertEquals(0.9, f.get("ofCeiling"));
        assertEquals(first.line(), f.get("line"));

        Map<String, Object> alone = recs.get(1).fields();
        assertEquals("write 2 MiB x 64: ucx 2.00 GB/s, 0.80x of the TCP ceiling (2.50 GB/s)", recs.get(1).line());
        assertNull(alone.get("runnerUp"));
        assertNull(alone.get("timesRunnerUp"));
        assertEquals(List.of(), alone.get("others"));
    }

    @Test
    void onOneHostTheCeilingIsMemcpyAndVaryingPollsAreNamed() {
        List<Recommendation> recs = Recommendations.of(List.of(
                row("loopback", "in-process", "spin", 4096, 4, 8, Double.NaN),
                row("ucx", "in-process", "spin", 4096, 6, 8, Double.NaN),
                row("loopback", "in-process", "backoff", 4096, 5, 8, Double.NaN),
                row("ucx", "in-process", "backoff", 4096, 2, 8, Double.NaN)));
        assertEquals(List.of("write 4 KiB x 64 (spin poll): ucx 6.00 GB/s, 1.50x loopback, 0.75x of memcpy (8.00 GB/s)",
                "write 4 KiB x 64 (backoff poll): loopback 5.00 GB/s, 2.50x ucx, 0.63x of memcpy (8.00 GB/s)"),
                recs.stream().map(Recommendation::line).toList());
        assertEquals("memcpy", recs.getFirst().fields().get("ceiling"));
        assertTrue(recs.stream().allMatch(r -> r.runnerUp().isPresent()));
    }
}
