package io.blockxfer.cli.internal;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * Prints benchmark rows as a table for people, as CSV with a header line (the rows only), or as a
 * JSON object (through Jackson) with the rows, each with the fields of {@link BenchRow#fields()},
 * and the recommendations, each with those of {@link Recommendation#fields()}. The table shows the
 * columns every run has, plus the poll style, progress mode and hog when the run varied them, and
 * the TCP ceiling when the target was remote, the asked-for rate when the run was paced, and the
 * notification columns (and {@link NotifyLines} under the table) when transfers carried notifications.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class RowFormats {

    private record Column(String title, boolean right, Function<BenchRow, String> cell) {
    }

    private RowFormats() {
    }

    /** The rows as an aligned table. */
    public static void table(List<BenchRow> rows, PrintWriter out) {
        List<Column> columns = new ArrayList<>();
        columns.add(new Column("BACKEND", false, BenchRow::backend));
        columns.add(new Column("OP", false, BenchRow::op));
        if (varies(rows, BenchRow::poll) || rows.stream().anyMatch(r -> !r.poll().equals("backoff"))) {
            columns.add(new Column("POLL", false, BenchRow::poll));
        }
        if (rows.stream().anyMatch(r -> !r.progress().equals("auto"))) {
            columns.add(new Column("PROGRESS", false, BenchRow::progress));
        }
        if (rows.stream().anyMatch(BenchRow::hog)) {
            columns.add(new Column("HOG", false, r -> r.hog() ? "on" : "off"));
        }
        columns.add(new Column("BLOCK", true, r -> ByteSizes.format(r.blockBytes())));
        columns.add(new Column("BATCH", true, r -> Integer.toString(r.batchBlocks())));
        columns.add(new Column("WINDOW", true, r -> Integer.toString(r.window())));
        columns.add(new Column("GB/s", true, r -> fixed(r.gbPerSec(), 2)));
        columns.add(new Column("MEMCPY GB/s", true, r -> fixed(r.memcpyGbPerSec(), 2)));
        columns.add(new Column("RATIO", true, r -> fixed(r.ratio(), 2) + "x"));
        if (rows.stream().anyMatch(BenchRow::remote)) {
            columns.add(new Column("TCP GB/s", true, r -> fixed(r.wireGbPerSec(), 2)));
            columns.add(new Column("xTCP", true, r -> fixed(r.wireRatio(), 2) + "x"));
        }
        if (rows.stream().anyMatch(BenchRow::paced)) {
            columns.add(new Column("PACED/s", true, r -> r.paced() ? grouped(r.pacedTransfersPerSec()) : "-"));
        }
        columns.add(new Column("TRANSFERS/s", true, r -> grouped(r.transfersPerSec())));
        columns.add(new Column("P50 us", true, r -> fixed(r.p50Micros(), 1)));
        columns.add(new Column("P99 us", true, r -> fixed(r.p99Micros(), 1)));
        columns.add(new Column("P99.9 us", true, r -> fixed(r.p999Micros(), 1)));
        columns.add(new Column("MAX us", true, r -> fixed(r.maxMicros(), 1)));
        columns.add(new Column("CPU", true, r -> fixed(r.cpuCores(), 2)));
        columns.add(new Column("CPU us/T", true, r -> fixed(r.cpuMicrosPerTransfer(), 2)));
        if (rows.stream().anyMatch(r -> !Double.isNaN(r.targetCpuMicrosPerTransfer()))) {
            columns.add(new Column("TARGET CPU us/T", true, r -> fixed(r.targetCpuMicrosPerTransfer(), 2)));
        }
        boolean notified = rows.stream().anyMatch(BenchRow::notifies);
        if (notified) {
            columns.add(2, new Column("NOTIFY", false, r -> r.notifies() ? "on" : "off"));
            columns.add(new Column("xPLAIN", true, r -> r.notifies() ? fixed(r.vsPlain(), 2) + "x" : "-"));
            columns.add(new Column("NOTE P50 us", true, r -> notifyCell(r, NotifyFigures::p50Micros)));
            columns.add(new Column("NOTE P99 us", true, r -> notifyCell(r, NotifyFigures::p99Micros)));
        }

        Table t = new Table(columns.stream().map(Column::title).toArray(String[]::new));
        for (int c = 0; c < columns.size(); c++) {
            if (columns.get(c).right()) {
                t.alignRight(c);
            }
        }
        for (BenchRow r : rows) {
            t.row(columns.stream().map(c -> c.cell().apply(r)).toArray(String[]::new));
        }
        t.print(out);
        if (notified) {
            out.println();
            NotifyLines.of(rows).forEach(line -> out.println("notify: " + line));
        }
    }

    /** The rows as CSV, header first; a measurement that was not taken is an empty cell. */
    public static void csv(List<BenchRow> rows, PrintWriter out) {
        if (rows.isEmpty()) {
            return;
        }
        out.println(String.join(",", rows.getFirst().fields().keySet()));
        for (BenchRow r : rows) {
            List<String> cells = new ArrayList<>();
            for (Object v : r.fields().values()) {
                cells.add(v == null ? "" : csvCell(String.valueOf(v)));
            }
            out.println(String.join(",", cells));
        }
        out.flush();
    }

    /** {@code {"rows": [...], "recommendations": [...]}}. */
    public static void json(List<BenchRow> rows, List<Recommendation> recommendations, PrintWriter out) {
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("rows", rows.stream().map(BenchRow::fields).toList());
        report.put("recommendations", recommendations.stream().map(Recommendation::fields).toList());
        out.println(JsonOutput.pretty(report));
        out.flush();
    }

    private static boolean varies(List<BenchRow> rows, Function<BenchRow, String> field) {
        return rows.stream().map(field).distinct().count() > 1;
    }

    private static String notifyCell(BenchRow r, ToDoubleFunction<NotifyFigures> figure) {
        NotifyFigures n = r.notified();
        return n == null ? "-" : fixed(figure.applyAsDouble(n), 1);
    }

    private static String csvCell(String s) {
        return s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }

    private static String fixed(double v, int decimals) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%." + decimals + "f", v) : "-";
    }

    private static String grouped(double v) {
        return String.format(Locale.ROOT, "%,.0f", v);
    }
}
