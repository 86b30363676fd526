package io.blockxfer.directory.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Keeps a stream of like occurrences (refused entries, overwrites of this process's entry) to a
 * bounded number of log lines: the first occurrence after a quiet interval is logged in full at
 * once and opens an interval; the others within it are only counted, by kind, with the first few
 * keys they concerned, and summed up in one line when the interval ends, which opens the next one.
 * An interval in which nothing was counted closes quietly, so the next occurrence is logged in
 * full again. However many occurrences come, a digest logs at most one full line and one summary
 * per interval.
 *
 * <p><b>Thread safety:</b> not thread-safe; one thread (the membership's) owns it.
 */
public final class LogDigest {

    /** Keys named by a summary. */
    public static final int KEYS_SHOWN = 5;

    private final long intervalNanos;
    private boolean open;
    private long windowStart;
    private long counted;
    private final Map<String, Long> byKind = new TreeMap<>();
    private final List<String> keys = new ArrayList<>();

    /** A digest whose summaries cover {@code intervalNanos} each. */
    public LogDigest(long intervalNanos) {
        if (intervalNanos <= 0) {
            throw new IllegalArgumentException("interval must be positive: " + intervalNanos);
        }
        this.intervalNanos = intervalNanos;
    }

    /** The length of an interval, in nanoseconds. */
    public long intervalNanos() {
        return intervalNanos;
    }

    /**
     * Records an occurrence of {@code kind} concerning {@code key} at {@code now}. Returns true when
     * it is to be logged in full (it opened an interval: the caller then calls {@link #flush} once
     * the interval is over); false when it was counted for the summary.
     */
    public boolean add(long now, String kind, String key) {
        if (!open) {
            open = true;
            windowStart = now;
            return true;
        }
        counted++;
        byKind.merge(kind, 1L, Long::sum);
        if (keys.size() < KEYS_SHOWN && !keys.contains(key)) {
            keys.add(key);
        }
        return false;
    }

    /** Whether an interval is open (a {@link #flush} is due at its end). */
    public boolean isOpen() {
        return open;
    }

    /**
     * Ends the interval at {@code now}: the summary of what was counted in it, or null when nothing
     * was (the digest is quiet again). After a summary the next interval is open: call flush again
     * at its end.
     */
    public @Nullable Summary flush(long now) {
        if (!open) {
            return null;
        }
        if (counted == 0) {
            open = false;
            return null;
        }
        Summary s = new Summary(counted, Map.copyOf(byKind), List.copyOf(keys), now - windowStart);
        counted = 0;
        byKind.clear();
        keys.clear();
        windowStart = now;
        return s;
    }

    /**
     * What an interval counted: how many, how many of each kind, the first keys, and how long the
     * interval was. <b>Thread safety:</b> immutable.
     */
    public record Summary(long count, Map<String, Long> byKind, List<String> firstKeys, long nanos) {

        /** "MALFORMED 4,990, BAD_KEY 9", largest first. */
        public String kinds() {
            Comparator<Map.Entry<String, Long>> largestFirst = Map.Entry.<String, Long>comparingByValue().reversed();
            return byKind.entrySet().stream()
                    .sorted(largestFirst.thenComparing(Map.Entry.<String, Long>comparingByKey()))
                    .map(e -> e.getKey() + " " + grouped(e.getValue()))
                    .collect(Collectors.joining(", "));
        }

        /** "/p/a, /p/b" and, when more keys were concerned than shown, ", ...". */
        public String keys() {
            return String.join(", ", firstKeys) + (count > firstKeys.size() ? ", ..." : "");
        }

        /** The interval in whole seconds, at least 1. */
        public long seconds() {
            return Math.max(1, Math.round(nanos / 1e9));
        }
    }

    /** {@code n} with thousands separated by commas. */
    public static String grouped(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }
}
