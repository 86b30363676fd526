package io.blockxfer.cli.internal;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Prints benchmark rows as a table for people, as CSV with a header line, or as a JSON array of
 * objects with the fields of {@link BenchRow#fields()}.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class RowFormats {

    private RowFormats() {
    }

    /** The rows as an aligned table. */
    public static void table(List<BenchRow> rows, PrintWriter out) {
        Table t = new Table("BACKEND", "OP", "BLOCK", "BATCH", "WINDOW", "GB/s", "MEMCPY GB/s", "RATIO",
                "TRANSFERS/s", "P50 us", "P99 us");
        t.alignRight(2, 3, 4, 5, 6, 7, 8, 9, 10);
        for (BenchRow r : rows) {
            t.row(r.backend(), r.op(), ByteSizes.format(r.blockBytes()), Integer.toString(r.batchBlocks()),
                    Integer.toString(r.window()), fixed(r.gbPerSec(), 2), fixed(r.memcpyGbPerSec(), 2),
                    fixed(r.ratio(), 2) + "x", grouped(r.transfersPerSec()), fixed(r.p50Micros(), 1),
                    fixed(r.p99Micros(), 1));
        }
        t.print(out);
    }

    /** The rows as CSV, header first. */
    public static void csv(List<BenchRow> rows, PrintWriter out) {
        if (rows.isEmpty()) {
            return;
        }
        out.println(String.join(",", rows.getFirst().fields().keySet()));
        for (BenchRow r : rows) {
            List<String> cells = new ArrayList<>();
            for (Object v : r.fields().values()) {
                cells.add(v instanceof Double d ? Json.write(d) : csvCell(String.valueOf(v)));
            }
            out.println(String.join(",", cells));
        }
        out.flush();
    }

    /** The rows as a JSON array. */
    public static void json(List<BenchRow> rows, PrintWriter out) {
        List<Map<String, Object>> list = rows.stream().map(BenchRow::fields).collect(Collectors.toList());
        out.println(Json.writeLines(list));
        out.flush();
    }

    private static String csvCell(String s) {
        return s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }

    private static String fixed(double v, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    private static String grouped(double v) {
        return String.format(Locale.ROOT, "%,.0f", v);
    }
}
