package io.blockxfer.transport;

import org.jspecify.annotations.Nullable;

/**
 * No backend fits: the one asked for is unknown or unavailable, or none is available. The message
 * lists every provider found and why each is unavailable.
 *
 * <p><b>Thread safety:</b> immutable after construction.
 */
public class TransportUnavailableException extends TransportException {
    private static final long serialVersionUID = 1L;

    /** Names what was asked for and every provider's state. */
    public TransportUnavailableException(String message) {
        super(message);
    }

    /** As {@link #TransportUnavailableException(String)}, with the load error. */
    public TransportUnavailableException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
