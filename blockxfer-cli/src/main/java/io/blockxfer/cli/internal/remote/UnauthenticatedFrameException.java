package io.blockxfer.cli.internal.remote;

/**
 * A control frame whose tag does not verify under the session's deployment key: it was changed,
 * replayed or reordered, or the other end holds another key or none. Nothing in the frame was
 * parsed; the connection is closed.
 *
 * <p><b>Thread safety:</b> immutable.
 */
final class UnauthenticatedFrameException extends ProtocolException {

    private static final long serialVersionUID = 1L;

    /** A frame rejected for the reason in {@code message}. */
    UnauthenticatedFrameException(String message) {
        super(message);
    }
}
