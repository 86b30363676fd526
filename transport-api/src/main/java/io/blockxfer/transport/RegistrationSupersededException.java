package io.blockxfer.transport;

/**
 * A peer registration lost to a later {@link DataTransport#removePeer} or add of the same peer, or
 * to {@link DataTransport#close()}, while it was being built. What it built was released.
 *
 * <p><b>Thread safety:</b> immutable after construction.
 */
public class RegistrationSupersededException extends TransportException {
    private static final long serialVersionUID = 1L;

    /** Names the peer and what superseded the registration. */
    public RegistrationSupersededException(String message) {
        super(message);
    }
}
