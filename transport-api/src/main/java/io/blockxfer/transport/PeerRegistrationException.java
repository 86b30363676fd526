package io.blockxfer.transport;

import org.jspecify.annotations.Nullable;

/**
 * The native layer refused or failed to register a peer (unreachable agent, native error).
 * Whatever the attempt built was released; nothing was registered.
 *
 * <p><b>Thread safety:</b> immutable after construction.
 */
public class PeerRegistrationException extends TransportException {
    private static final long serialVersionUID = 1L;

    /** Names the peer and the failure. */
    public PeerRegistrationException(String message) {
        super(message);
    }

    /** Names the peer and the failure, with the native cause. */
    public PeerRegistrationException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
