package io.blockxfer.cli.internal.remote;

import java.io.IOException;

/**
 * The other end of a bench connection broke the protocol: a wrong preamble or version, a frame
 * that is too long or not a JSON object, a missing or out-of-range field. The connection is
 * closed; nothing the message asked for was done.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public class ProtocolException extends IOException {

    private static final long serialVersionUID = 1L;

    /** A violation described by {@code message}. */
    public ProtocolException(String message) {
        super(message);
    }
}
