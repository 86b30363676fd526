package io.blockxfer.multihost;

import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * How one resource of the initiator moved during a soak: its first, last, lowest and highest
 * sample, the least-squares slope per minute over the second half of the run (the first half is
 * warm-up, when the JIT, the heap and the backends' caches still grow), and the highest sample of
 * each half. A trend is judged by one {@link Rule}.
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param what the resource, e.g. {@code fds}
 * @param unit its unit, e.g. {@code MiB}
 * @param first the first sample
 * @param last the last sample
 * @param min the lowest sample
 * @param max the highest sample
 * @param slopePerMinute the fitted growth per minute over the second half
 * @param fitted how many samples the fit used
 * @param firstHalfPeak the highest sample of the first half
 * @param secondHalfPeak the highest sample of the second half
 * @param rule how it is judged
 * @param bound the largest slope per minute ({@link Rule#SLOPE}) or rise of the peak ({@link Rule#PEAK}) that passes
 */
record Trend(String what, String unit, double first, double last, double min, double max, double slopePerMinute,
        int fitted, double firstHalfPeak, double secondHalfPeak, Rule rule, double bound) {

    /** How a trend is judged. */
    enum Rule {
        /** The slope over the second half must not exceed the bound. */
        SLOPE,
        /**
         * The second half's peak must not exceed the first half's by more than the bound: for a
         * count that swings with the churn (segments mapped while a peer is registered), whose
         * slope over a short run is mostly noise, but whose peak a leak raises.
         */
        PEAK,
        /** Shown, not judged. */
        SHOWN
    }

    /** The trend of {@code value} over {@code samples}, halves split at {@code halfMinutes}. */
    static Trend of(String what, String unit, List<ResourceSampler.Sample> samples,
            ToDoubleFunction<ResourceSampler.Sample> value, double halfMinutes, Rule rule, double bound) {
        if (samples.isEmpty()) {
            throw new IllegalArgumentException("no samples of " + what);
        }
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        double peak1 = Double.NEGATIVE_INFINITY;
        double peak2 = Double.NEGATIVE_INFINITY;
        for (ResourceSampler.Sample s : samples) {
            double v = value.applyAsDouble(s);
            min = Math.min(min, v);
            max = Math.max(max, v);
            if (s.minutes() < halfMinutes) {
                peak1 = Math.max(peak1, v);
            } else {
                peak2 = Math.max(peak2, v);
            }
        }
        List<ResourceSampler.Sample> tail = samples.stream().filter(s -> s.minutes() >= halfMinutes).toList();
        double[] x = tail.stream().mapToDouble(ResourceSampler.Sample::minutes).toArray();
        double[] y = tail.stream().mapToDouble(value).toArray();
        return new Trend(what, unit, value.applyAsDouble(samples.getFirst()), value.applyAsDouble(samples.getLast()),
                min, max, slope(x, y), x.length, peak1, peak2, rule, bound);
    }

    /** The least-squares slope of {@code y} over {@code x}; 0 with fewer than two distinct points. */
    static double slope(double[] x, double[] y) {
        int n = x.length;
        if (n < 2) {
            return 0;
        }
        double mx = 0;
        double my = 0;
        for (int i = 0; i < n; i++) {
            mx += x[i];
            my += y[i];
        }
        mx /= n;
        my /= n;
        double sxy = 0;
        double sxx = 0;
        for (int i = 0; i < n; i++) {
            sxy += (x[i] - mx) * (y[i] - my);
            sxx += (x[i] - mx) * (x[i] - mx);
        }
        return sxx == 0 ? 0 : sxy / sxx;
    }

    /** Whether the trend passes its rule; with too few samples in either half it does not. */
    boolean flat() {
        return switch (rule) {
            case SHOWN -> true;
            case SLOPE -> fitted >= 2 && slopePerMinute <= bound;
            case PEAK -> fitted >= 1 && firstHalfPeak > Double.NEGATIVE_INFINITY
                    && secondHalfPeak - firstHalfPeak <= bound;
        };
    }

    /** One line of what went wrong, for the verdict. */
    String violation() {
        return rule == Rule.PEAK
                ? String.format(Locale.ROOT, "%s peaked at %s in the second half against %s in the first (bound +%s)",
                        what, num(secondHalfPeak), num(firstHalfPeak), num(bound))
                : String.format(Locale.ROOT, "%s grew %.2f %s/min over the second half (bound %.1f)", what,
                        slopePerMinute, unit, bound);
    }

    /** One report line. */
    String describe() {
        String verdict = switch (rule) {
            case SHOWN -> "shown only";
            case SLOPE -> String.format(Locale.ROOT, "slope bound %.1f: %s", bound, flat() ? "flat" : "GROWING");
            case PEAK -> String.format(Locale.ROOT, "peaks %s then %s, bound +%s: %s", num(firstHalfPeak),
                    num(secondHalfPeak), num(bound), flat() ? "flat" : "GROWING");
        };
        return String.format(Locale.ROOT, "%-8s first %s, last %s, range %s..%s %s; second half: %+.2f %s/min"
                + " (%d samples; %s)", what, num(first), num(last), num(min), num(max), unit, slopePerMinute, unit,
                fitted, verdict);
    }

    private static String num(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }
}
