package io.blockxfer.cli.internal;

import java.util.Locale;
import java.util.logging.Level;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Converts a log level, in any case: {@code off}, {@code error}, {@code warn}, {@code info},
 * {@code debug}, {@code trace}, {@code all}, or a {@code java.util.logging} level name
 * ({@code severe}, {@code warning}, {@code config}, {@code fine}, {@code finer}, {@code finest}).
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class LogLevelConverter implements ITypeConverter<Level> {

    /** For picocli. */
    public LogLevelConverter() {
    }

    @Override
    public Level convert(String value) {
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "off" -> Level.OFF;
            case "error", "severe" -> Level.SEVERE;
            case "warn", "warning" -> Level.WARNING;
            case "info" -> Level.INFO;
            case "config" -> Level.CONFIG;
            case "debug", "fine" -> Level.FINE;
            case "finer" -> Level.FINER;
            case "trace", "finest" -> Level.FINEST;
            case "all" -> Level.ALL;
            default -> throw new TypeConversionException("unknown log level '" + value
                    + "': use off, error, warn, info, debug, trace or all");
        };
    }
}
