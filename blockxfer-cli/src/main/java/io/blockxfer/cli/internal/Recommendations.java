package io.blockxfer.cli.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns benchmark rows into one {@link Recommendation} per operation, block size and batch (and
 * poll style, progress mode and hog, where the run varied them): the fastest backend, how many times
 * each other one it is, and what fraction of the ceiling it reaches. They choose among transfers
 * without notifications; the rows of {@code --notify} that carried them are compared with their
 * plain twins instead ({@link NotifyLines}).
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class Recommendations {

    private record Group(String op, long blockBytes, int batch, String poll, String progress, boolean hog) {
    }

    private Recommendations() {
    }

    /**
     * The recommendations, in the order the rows were measured; none when the run measured a single
     * backend on this host (there is nothing to choose between and no wire).
     */
    public static List<Recommendation> of(List<BenchRow> measured) {
        List<BenchRow> rows = measured.stream().filter(r -> !r.notifies()).toList();
        boolean remote = rows.stream().anyMatch(BenchRow::remote);
        if (!remote && rows.stream().map(BenchRow::backend).distinct().count() < 2) {
            return List.of();
        }
        boolean showPoll = rows.stream().map(BenchRow::poll).distinct().count() > 1;
        boolean showProgress = rows.stream().map(BenchRow::progress).distinct().count() > 1;
        boolean showHog = rows.stream().map(BenchRow::hog).distinct().count() > 1;
        Map<Group, List<BenchRow>> groups = new LinkedHashMap<>();
        for (BenchRow r : rows) {
            groups.computeIfAbsent(new Group(r.op(), r.blockBytes(), r.batchBlocks(), r.poll(), r.progress(), r.hog()),
                    g -> new ArrayList<>()).add(r);
        }
        List<Recommendation> recommendations = new ArrayList<>();
        for (Map.Entry<Group, List<BenchRow>> e : groups.entrySet()) {
            Group g = e.getKey();
            List<BenchRow> ranked = new ArrayList<>(e.getValue());
            ranked.sort(Comparator.comparingDouble(BenchRow::gbPerSec).reversed());
            List<String> qualifiers = new ArrayList<>();
            if (showPoll) {
                qualifiers.add(g.poll() + " poll");
            }
            if (showProgress) {
                qualifiers.add("progress " + g.progress());
            }
            if (showHog) {
                qualifiers.add(g.hog() ? "hogged" : "quiet");
            }
            recommendations.add(new Recommendation(ranked, qualifiers));
        }
        return recommendations;
    }
}
