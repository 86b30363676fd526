package io.blockxfer.cli.internal;

import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A failure the user can fix (unknown backend, sizes that do not fit, a provider that does not
 * load): printed as one short line, never with a stack trace, and the command exits with
 * {@link #exitCode()}. The long form (every provider's cause, library paths, a server's own words)
 * is its {@link #detail()}, printed only under {@code --verbose}.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public final class CliException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Exit code of a usage error (bad flag or value). */
    public static final int USAGE = 2;
    /** Exit code of a failure at run time. */
    public static final int FAILURE = 1;

    private final int exitCode;
    private final @Nullable String detail;

    /** A run-time failure with exit code {@link #FAILURE}. */
    public CliException(String message) {
        this(message, FAILURE, null);
    }

    /** A failure with an explicit exit code and cause. */
    public CliException(String message, int exitCode, @Nullable Throwable cause) {
        this(message, exitCode, cause, null);
    }

    private CliException(@Nullable String message, int exitCode, @Nullable Throwable cause, @Nullable String detail) {
        super(message, cause);
        this.exitCode = exitCode;
        this.detail = detail;
    }

    /** A usage error (exit code {@link #USAGE}). */
    public static CliException usage(String message) {
        return new CliException(message, USAGE, null);
    }

    /** This failure with {@code detail} to show under {@code --verbose}. */
    public CliException withDetail(@Nullable String detail) {
        CliException e = new CliException(getMessage(), exitCode, getCause(), detail);
        e.setStackTrace(getStackTrace());
        return e;
    }

    /** The process exit code for this failure. */
    public int exitCode() {
        return exitCode;
    }

    /** The long explanation for {@code --verbose}, if there is one. */
    public Optional<String> detail() {
        return Optional.ofNullable(detail);
    }
}
