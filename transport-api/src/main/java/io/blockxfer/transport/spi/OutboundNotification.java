package io.blockxfer.transport.spi;

import java.util.Objects;

/**
 * A notification on its way out, as the managed transport hands it to a {@link TransferEngine}: the
 * frame to send to a blockxfer peer (the payload, the sender's name, the transfer it follows, the
 * addressee, and a MAC in a deployment with a key ring), and the bare payload for the rare peer
 * that only understands raw messages (a plain NIXL agent).
 *
 * <p><b>Thread safety:</b> immutable; the engine must not change the arrays.
 */
public final class OutboundNotification {

    private final byte[] frame;
    private final byte[] payload;

    /** A notification whose {@code frame} carries {@code payload}; neither is copied. */
    public OutboundNotification(byte[] frame, byte[] payload) {
        this.frame = Objects.requireNonNull(frame, "frame");
        this.payload = Objects.requireNonNull(payload, "payload");
    }

    /** The bytes to send to a blockxfer peer, whose engine hands them to its {@link NotificationSink}. */
    public byte[] frame() {
        return frame;
    }

    /** The user's message alone, for a peer that does not speak blockxfer's format. */
    public byte[] payload() {
        return payload;
    }

    @Override
    public String toString() {
        return "OutboundNotification[" + frame.length + " B frame, " + payload.length + " B payload]";
    }
}
