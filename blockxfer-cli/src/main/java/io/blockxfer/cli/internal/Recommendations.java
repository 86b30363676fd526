package io.blockxfer.cli.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns benchmark rows into one recommendation per operation, block size and batch (and poll style,
 * progress mode and hog, where the run varied them): the fastest backend, how many times the next
 * one it is, and what fraction of the ceiling it reaches: the TCP stream between the hosts for a
 * remote target, memcpy otherwise. For example {@code write 256 KiB x 64: ucx 3.12 GB/s, 1.80x nixl,
 * 0.93x of the TCP ceiling (3.36 GB/s)}.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class Recommendations {

    private record Group(String op, long blockBytes, int batch, String poll, String progress, boolean hog) {
    }

    private Recommendations() {
    }

    /**
     * The recommendation lines, in the order the rows were measured; none when the run measured a
     * single backend on this host (there is nothing to choose between and no wire).
     */
    public static List<String> lines(List<BenchRow> rows) {
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
        List<String> lines = new ArrayList<>();
        for (Map.Entry<Group, List<BenchRow>> e : groups.entrySet()) {
            Group g = e.getKey();
            List<BenchRow> ranked = new ArrayList<>(e.getValue());
            ranked.sort(Comparator.comparingDouble(BenchRow::gbPerSec).reversed());
            BenchRow best = ranked.getFirst();
            StringBuilder sb = new StringBuilder();
            sb.append(g.op()).append(' ').append(ByteSizes.format(g.blockBytes())).append(" x ").append(g.batch());
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
            if (!qualifiers.isEmpty()) {
                sb.append(" (").append(String.join(", ", qualifiers)).append(')');
            }
            sb.append(": ").append(best.backend()).append(' ').append(fixed(best.gbPerSec())).append(" GB/s");
            for (BenchRow other : ranked.subList(1, ranked.size())) {
                sb.append(", ").append(times(best.gbPerSec() / other.gbPerSec())).append(' ').append(other.backend());
            }
            if (best.remote() && Double.isFinite(best.wireRatio())) {
                sb.append(", ").append(times(best.wireRatio())).append(" of the TCP ceiling (")
                        .append(fixed(best.wireGbPerSec())).append(" GB/s)");
            } else {
                sb.append(", ").append(times(best.ratio())).append(" of memcpy (").append(fixed(best.memcpyGbPerSec()))
                        .append(" GB/s)");
            }
            lines.add(sb.toString());
        }
        return lines;
    }

    private static String times(double ratio) {
        return Double.isFinite(ratio) ? String.format(Locale.ROOT, "%.2fx", ratio) : "-";
    }

    private static String fixed(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
