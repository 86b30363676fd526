package io.blockxfer.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/** Checks the {@code recommendations} of {@code bench --json} against its {@code rows}. */
final class BenchReports {

    private BenchReports() {
    }

    /**
     * Asserts that the report has one recommendation per op, block size, batch, poll, progress and
     * hog of its rows, in the order the rows first show them, and that each names the fastest row
     * of its group, the runner-up and the ratio of their GB/s, every other backend, and the
     * ceiling of the fastest row (the TCP stream for remote rows), and that its line says the same.
     * Rows whose transfers carried notifications ({@code --notify}) are not among those it chooses.
     *
     * @return the recommendations
     */
    static List<JsonNode> assertRecommendationsAgreeWithRows(String json) {
        JsonNode report = JsonTree.report(json);
        List<JsonNode> rows = JsonTree.objects(report.get("rows"), json);
        List<JsonNode> recommendations = JsonTree.objects(report.get("recommendations"), json);
        Map<String, List<JsonNode>> groups = new LinkedHashMap<>();
        for (JsonNode row : rows) {
            if (row.path("notify").asBoolean(false)) {
                continue;
            }
            groups.computeIfAbsent(group(row), g -> new ArrayList<>()).add(row);
        }
        assertEquals(List.copyOf(groups.keySet()), recommendations.stream().map(BenchReports::group).toList(), json);
        for (JsonNode rec : recommendations) {
            List<JsonNode> ranked = new ArrayList<>(groups.get(group(rec)));
            ranked.sort(Comparator.comparingDouble((JsonNode r) -> r.get("gbPerSec").asDouble()).reversed());
            JsonNode best = ranked.getFirst();
            String backend = best.get("backend").stringValue();
            double gbPerSec = best.get("gbPerSec").asDouble();
            assertEquals(backend, rec.get("backend").stringValue(), rec::toString);
            assertEquals(gbPerSec, rec.get("gbPerSec").asDouble(), 0, rec::toString);
            if (ranked.size() > 1) {
                JsonNode second = ranked.get(1);
                assertEquals(second.get("backend").stringValue(), rec.get("runnerUp").stringValue(), rec::toString);
                assertEquals(second.get("gbPerSec").asDouble(), rec.get("runnerUpGbPerSec").asDouble(), 0,
                        rec::toString);
                double times = gbPerSec / second.get("gbPerSec").asDouble();
                assertEquals(times, rec.get("timesRunnerUp").asDouble(), times * 1e-4, rec::toString);
            } else {
                assertTrue(rec.get("runnerUp").isNull() && rec.get("timesRunnerUp").isNull(), rec::toString);
            }
            List<String> others = ranked.subList(1, ranked.size()).stream().map(r -> r.get("backend").stringValue())
                    .toList();
            assertEquals(others, rec.get("others").valueStream().map(o -> o.get("backend").stringValue()).toList(),
                    rec::toString);
            boolean remote = best.get("placement").stringValue().equals("remote");
            assertEquals(remote ? "tcp" : "memcpy", rec.get("ceiling").stringValue(), rec::toString);
            assertEquals(best.get(remote ? "wireGbPerSec" : "memcpyGbPerSec").asDouble(),
                    rec.get("ceilingGbPerSec").asDouble(), 0, rec::toString);
            double of = best.get(remote ? "wireRatio" : "ratio").asDouble();
            assertEquals(of, rec.get("ofCeiling").asDouble(), of * 1e-4, rec::toString);
            String line = rec.get("line").stringValue();
            assertTrue(line.startsWith(rec.get("op").stringValue() + " ") && line.contains(": " + backend + " ")
                    && line.contains(remote ? " of the TCP ceiling (" : " of memcpy ("), line);
            for (String other : others) {
                assertTrue(line.contains("x " + other), () -> line + " names " + other);
            }
        }
        return recommendations;
    }

    private static String group(JsonNode n) {
        return n.get("op").stringValue() + " " + n.get("blockBytes").asLong() + " x " + n.get("batchBlocks").asInt()
                + " " + n.get("poll").stringValue() + " " + n.get("progress").stringValue() + " "
                + n.get("hog").booleanValue();
    }
}
