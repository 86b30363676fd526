package io.blockxfer.cli.internal;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Converts {@code 100us}, {@code 500ms}, {@code 2s}, {@code 1.5s}, {@code 1m} or a plain number of
 * seconds to a positive {@link Duration} from a microsecond to an hour.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class DurationConverter implements ITypeConverter<Duration> {

    private static final Pattern DURATION = Pattern.compile("(\\d{1,9}(?:\\.\\d{1,9})?)\\s*(us|\\u00b5s|ms|s|m)?");

    /** For picocli. */
    public DurationConverter() {
    }

    @Override
    public Duration convert(String value) {
        Matcher m = DURATION.matcher(value.strip());
        if (!m.matches()) {
            throw new TypeConversionException("bad duration '" + value + "': use e.g. 100us, 500ms, 2s, 1.5s or 1m");
        }
        double amount = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        double millis = switch (unit) {
            case "us", "\u00b5s" -> amount / 1_000;
            case "ms" -> amount;
            case "m" -> amount * 60_000;
            default -> amount * 1_000;
        };
        if (millis < 0.001 || millis > 3_600_000) {
            throw new TypeConversionException("duration '" + value + "' must be between 1us and 1h");
        }
        return Duration.ofNanos((long) (millis * 1_000_000));
    }
}
