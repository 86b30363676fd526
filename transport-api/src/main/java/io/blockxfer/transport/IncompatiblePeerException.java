package io.blockxfer.transport;

/**
 * A well-formed peer that this transport cannot talk to: another backend, another block length,
 * another config fingerprint, or its own agent. Nothing was registered.
 *
 * <p><b>Thread safety:</b> immutable after construction.
 */
public class IncompatiblePeerException extends TransportException {
    private static final long serialVersionUID = 1L;

    /** Names the mismatch, with both values. */
    public IncompatiblePeerException(String message) {
        super(message);
    }
}
