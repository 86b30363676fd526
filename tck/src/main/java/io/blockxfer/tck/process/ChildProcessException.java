package io.blockxfer.tck.process;

/**
 * A child process failed to start, did not answer in time, or exited while an answer was awaited.
 * The message names the child, its process id, its exit status when it has one, and the last lines
 * it wrote to stderr. A child JVM's failures are {@link ChildJvmException}s.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public class ChildProcessException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** An exception with {@code message}. */
    public ChildProcessException(String message) {
        super(message);
    }

    /** An exception with {@code message} and its {@code cause}. */
    public ChildProcessException(String message, Throwable cause) {
        super(message, cause);
    }
}
