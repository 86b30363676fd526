package io.blockxfer.benchmarks.baseline;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The rates one contender got in one case, round after round: median and range.
 *
 * <p><b>Thread safety:</b> not thread-safe.
 */
final class Samples {

    private final List<Double> values = new ArrayList<>();

    void add(double v) {
        values.add(v);
    }

    boolean isEmpty() {
        return values.isEmpty();
    }

    double median() {
        List<Double> s = values.stream().sorted().toList();
        int n = s.size();
        return n == 0 ? Double.NaN : n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    double min() {
        return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    double max() {
        return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    /** {@code median (min-max)}, with the precision the size of the numbers calls for. */
    String cell() {
        if (values.isEmpty()) {
            return "-";
        }
        return format(median()) + " (" + format(min()) + "-" + format(max()) + ")";
    }

    static String format(double v) {
        if (!Double.isFinite(v)) {
            return "-";
        }
        return Math.abs(v) >= 1000 ? String.format(Locale.ROOT, "%,.0f", v)
                : Math.abs(v) >= 10 ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%.2f", v);
    }
}
