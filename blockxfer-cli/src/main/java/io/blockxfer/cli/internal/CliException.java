package io.blockxfer.cli.internal;

/**
 * A failure the user can fix (unknown backend, sizes that do not fit, a provider that does not
 * load): printed as one line, never with a stack trace, and the command exits with
 * {@link #exitCode()}.
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

    /** A run-time failure with exit code {@link #FAILURE}. */
    public CliException(String message) {
        this(message, FAILURE, null);
    }

    /** A failure with an explicit exit code and cause. */
    public CliException(String message, int exitCode, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    /** A usage error (exit code {@link #USAGE}). */
    public static CliException usage(String message) {
        return new CliException(message, USAGE, null);
    }

    /** The process exit code for this failure. */
    public int exitCode() {
        return exitCode;
    }
}
