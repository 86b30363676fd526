package io.blockxfer.cli.internal;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses and prints byte sizes with binary suffixes: {@code 4096}, {@code 64K}, {@code 64KiB},
 * {@code 2M}, {@code 1G}, {@code 1T} (powers of 1024).
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class ByteSizes {

    private static final Pattern SIZE = Pattern.compile("(\\d{1,19})\\s*([kmgtKMGT]?)(?:i?[bB])?");
    private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB"};

    private ByteSizes() {
    }

    /**
     * The number of bytes {@code text} names.
     *
     * @throws IllegalArgumentException if it is not a positive size that fits in a {@code long}
     */
    public static long parse(String text) {
        Matcher m = SIZE.matcher(text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("bad size '" + text
                    + "': use a whole number of bytes with an optional K, M, G or T suffix (powers of 1024)");
        }
        int shift = switch (m.group(2).toUpperCase(Locale.ROOT)) {
            case "K" -> 10;
            case "M" -> 20;
            case "G" -> 30;
            case "T" -> 40;
            default -> 0;
        };
        long value;
        try {
            value = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("size '" + text + "' is too large", e);
        }
        if (value <= 0) {
            throw new IllegalArgumentException("size '" + text + "' must be positive");
        }
        if (value > (Long.MAX_VALUE >> shift)) {
            throw new IllegalArgumentException("size '" + text + "' is too large");
        }
        return value << shift;
    }

    /** {@code bytes} in the largest unit that keeps it at least 1, e.g. {@code 64 KiB}, {@code 1.5 MiB}. */
    public static String format(long bytes) {
        int unit = 0;
        double value = bytes;
        while (value >= 1024 && unit < UNITS.length - 1) {
            value /= 1024;
            unit++;
        }
        if (value == Math.rint(value)) {
            return (long) value + " " + UNITS[unit];
        }
        return String.format(Locale.ROOT, "%.1f %s", value, UNITS[unit]);
    }

    /** A short form for charts and compact columns: {@code 64K}, {@code 2M}, {@code 4096}. */
    public static String compact(long bytes) {
        String[] suffix = {"", "K", "M", "G", "T"};
        int unit = 0;
        long value = bytes;
        while (value >= 1024 && value % 1024 == 0 && unit < suffix.length - 1) {
            value /= 1024;
            unit++;
        }
        return value + suffix[unit];
    }
}
