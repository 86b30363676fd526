package io.blockxfer.cli.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * One recommendation of {@code blockxfer bench}: for one operation, block size and batch (and
 * caller loop, progress mode and hog), the backends measured, fastest first, and the ceiling the
 * fastest is held against: the TCP stream between the hosts for a remote target, memcpy otherwise.
 * {@link #line()} is the text the table prints after {@code recommendation: }; {@link #fields()}
 * is the same as data, for {@code --json}.
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param ranked the rows of the group, highest {@link BenchRow#gbPerSec()} first; never empty
 * @param qualifiers what tells this group from the others beyond op, block and batch (e.g.
 *     {@code spin poll}, {@code hogged}), as the line shows them
 */
public record Recommendation(List<BenchRow> ranked, List<String> qualifiers) {

    /** Copies the lists; {@code ranked} must not be empty. */
    public Recommendation {
        ranked = List.copyOf(ranked);
        qualifiers = List.copyOf(qualifiers);
        if (ranked.isEmpty()) {
            throw new IllegalArgumentException("a recommendation needs at least one row");
        }
    }

    /** The fastest row: the recommended backend. */
    public BenchRow best() {
        return ranked.getFirst();
    }

    /** The second fastest row, if more than one backend was measured. */
    public Optional<BenchRow> runnerUp() {
        return ranked.size() > 1 ? Optional.of(ranked.get(1)) : Optional.empty();
    }

    /** Whether the ceiling is the TCP stream between the hosts (else memcpy on this host). */
    public boolean tcpCeiling() {
        return best().remote() && Double.isFinite(best().wireRatio());
    }

    /** The ceiling's GB/s. */
    public double ceilingGbPerSec() {
        return tcpCeiling() ? best().wireGbPerSec() : best().memcpyGbPerSec();
    }

    /** The fastest backend's GB/s over the ceiling's. */
    public double ofCeiling() {
        return tcpCeiling() ? best().wireRatio() : best().ratio();
    }

    /**
     * The line as the table prints it, e.g. {@code write 256 KiB x 64: ucx 3.12 GB/s, 1.80x nixl,
     * 0.93x of the TCP ceiling (3.36 GB/s)}.
     */
    public String line() {
        BenchRow best = best();
        StringBuilder sb = new StringBuilder();
        sb.append(best.op()).append(' ').append(ByteSizes.format(best.blockBytes())).append(" x ")
                .append(best.batchBlocks());
        if (!qualifiers.isEmpty()) {
            sb.append(" (").append(String.join(", ", qualifiers)).append(')');
        }
        sb.append(": ").append(best.backend()).append(' ').append(fixed(best.gbPerSec())).append(" GB/s");
        for (BenchRow other : ranked.subList(1, ranked.size())) {
            sb.append(", ").append(times(best.gbPerSec() / other.gbPerSec())).append(' ').append(other.backend());
        }
        sb.append(", ").append(times(ofCeiling())).append(tcpCeiling() ? " of the TCP ceiling (" : " of memcpy (")
                .append(fixed(ceilingGbPerSec())).append(" GB/s)");
        return sb.toString();
    }

    /** The recommendation as an ordered map for JSON; numbers rounded to six significant digits. */
    public Map<String, Object> fields() {
        BenchRow best = best();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("op", best.op());
        m.put("blockBytes", best.blockBytes());
        m.put("batchBlocks", best.batchBlocks());
        m.put("poll", best.poll());
        m.put("progress", best.progress());
        m.put("hog", best.hog());
        m.put("backend", best.backend());
        m.put("gbPerSec", JsonOutput.measured(best.gbPerSec()));
        Optional<BenchRow> second = runnerUp();
        m.put("runnerUp", second.map(BenchRow::backend).orElse(null));
        m.put("runnerUpGbPerSec", second.map(r -> JsonOutput.measured(r.gbPerSec())).orElse(null));
        m.put("timesRunnerUp", second.map(r -> JsonOutput.measured(best.gbPerSec() / r.gbPerSec())).orElse(null));
        List<Map<String, Object>> others = new ArrayList<>();
        for (BenchRow other : ranked.subList(1, ranked.size())) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("backend", other.backend());
            o.put("gbPerSec", JsonOutput.measured(other.gbPerSec()));
            o.put("times", JsonOutput.measured(best.gbPerSec() / other.gbPerSec()));
            others.add(o);
        }
        m.put("others", others);
        m.put("ceiling", tcpCeiling() ? "tcp" : "memcpy");
        m.put("ceilingGbPerSec", JsonOutput.measured(ceilingGbPerSec()));
        m.put("ofCeiling", JsonOutput.measured(ofCeiling()));
        m.put("line", line());
        return m;
    }

    private static String times(double ratio) {
        return Double.isFinite(ratio) ? String.format(Locale.ROOT, "%.2fx", ratio) : "-";
    }

    private static String fixed(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
