package io.blockxfer.transport;

import org.jspecify.annotations.Nullable;

/**
 * The root of blockxfer's typed exceptions. Transfer failures are never thrown: they are
 * {@code failed} reports from {@link DataTransport#poll(String)}.
 *
 * <p><b>Thread safety:</b> immutable after construction, like any exception.
 */
public class TransportException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** An exception with a message that names the problem. */
    public TransportException(String message) {
        super(message);
    }

    /** An exception with a message and its cause. */
    public TransportException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
