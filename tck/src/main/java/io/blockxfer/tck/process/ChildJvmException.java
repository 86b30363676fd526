package io.blockxfer.tck.process;

/**
 * A child JVM failed to start, did not answer in time, or exited while an answer was awaited. The
 * message names the child, its process id, its exit status when it has one, and the last lines it
 * wrote to stderr. Every failure of a {@link ChildJvm} is one of these.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public final class ChildJvmException extends ChildProcessException {

    private static final long serialVersionUID = 1L;

    /** An exception with {@code message}. */
    public ChildJvmException(String message) {
        super(message);
    }

    /** An exception with {@code message} and its {@code cause}. */
    public ChildJvmException(String message, Throwable cause) {
        super(message, cause);
    }
}
