package io.blockxfer.transport;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A short message one transport received from another: sent with a WRITE into this transport's
 * blocks or a READ of them, once every byte of that transfer was visible here, or sent on its own
 * ({@link DataTransport#sendNotification}). Received through {@link DataTransport#pollNotifications}
 * (and its waiting form) or {@link DataTransport#notifications()}, each notification by exactly one
 * of them.
 *
 * <p>{@link #sender()} names the sender as this transport knows it: the peer id under which it
 * registered the sender's descriptor, or, when it registered none, the sender's own agent name.
 * In a transport with a {@link TransportConfig#keyRing() key ring}, a notification is delivered only
 * if it carries a valid MAC of a key in the ring ({@link #authenticated()} is then true), unless
 * the transport accepts unsigned peers.
 *
 * <p><b>Thread safety:</b> immutable; {@link #payload()} returns a copy.
 */
public final class Notification {

    /** The largest payload a notification carries, 1 KiB; a longer one is refused before anything is sent. */
    public static final int MAX_PAYLOAD_BYTES = 1024;

    /** What a notification announces. */
    public enum Kind {
        /** A WRITE into this transport's blocks ended; every byte of it is visible here. */
        WRITE,
        /** A READ of this transport's blocks ended; the reader has its copy. */
        READ,
        /** A message without a transfer ({@link DataTransport#sendNotification}). */
        MESSAGE,
        /**
         * A message from a peer that does not speak blockxfer's notification format (a plain NIXL
         * agent, such as NIXL's Python API): whether it came with a transfer is not known, and it
         * is never authenticated.
         */
        FOREIGN
    }

    private final String sender;
    private final String senderAgent;
    private final Kind kind;
    private final long transferId;
    private final byte[] payload;
    private final boolean authenticated;
    private final long droppedBefore;

    /**
     * A notification as a transport delivers it; backends and tests build them, users receive them.
     *
     * @param sender the sender as the receiver knows it (see {@link #sender()})
     * @param senderAgent the agent name the sender gave
     * @param kind what it announces
     * @param transferId the sender's transfer id, or -1 for {@link Kind#MESSAGE} and {@link Kind#FOREIGN}
     * @param payload the message, at most {@link #MAX_PAYLOAD_BYTES}; copied
     * @param authenticated whether a MAC under the receiver's key ring vouched for it
     * @param droppedBefore how many of this sender's notifications the receiver dropped, its queue
     *     full, since it last delivered one of this sender's
     * @throws IllegalArgumentException if the payload is too long, a count is negative, or the
     *     transfer id does not fit the kind
     */
    public Notification(String sender, String senderAgent, Kind kind, long transferId, byte[] payload,
            boolean authenticated, long droppedBefore) {
        this.sender = Objects.requireNonNull(sender, "sender");
        this.senderAgent = Objects.requireNonNull(senderAgent, "senderAgent");
        this.kind = Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(payload, "payload");
        checkPayload(payload);
        boolean transfer = kind == Kind.WRITE || kind == Kind.READ;
        if (transfer ? transferId < 0 : transferId != -1) {
            throw new IllegalArgumentException("transfer id " + transferId + " does not fit a " + kind + " notification");
        }
        if (droppedBefore < 0) {
            throw new IllegalArgumentException("droppedBefore must not be negative: " + droppedBefore);
        }
        this.transferId = transferId;
        this.payload = payload.clone();
        this.authenticated = authenticated;
        this.droppedBefore = droppedBefore;
    }

    /**
     * Checks a payload's length against {@link #MAX_PAYLOAD_BYTES}.
     *
     * @throws IllegalArgumentException naming both lengths when it is longer
     */
    public static void checkPayload(byte[] payload) {
        if (payload.length > MAX_PAYLOAD_BYTES) {
            throw new IllegalArgumentException("notification payload has " + payload.length + " bytes; at most "
                    + MAX_PAYLOAD_BYTES + " are allowed (Notification.MAX_PAYLOAD_BYTES)");
        }
    }

    /**
     * The sender as this transport knows it: the peer id it registered the sender under, or the
     * sender's own agent name when the sender is not a registered peer (a foreign NIXL agent: its
     * NIXL agent name).
     */
    public String sender() {
        return sender;
    }

    /** The agent name the sender gave ({@link DataTransport#agentName()} of the sending transport). */
    public String senderAgent() {
        return senderAgent;
    }

    /** What this notification announces. */
    public Kind kind() {
        return kind;
    }

    /** The transfer id the sender's submit returned, or -1 for {@link Kind#MESSAGE} and {@link Kind#FOREIGN}. */
    public long transferId() {
        return transferId;
    }

    /** A copy of the message. */
    public byte[] payload() {
        return payload.clone();
    }

    /** The message's length in bytes. */
    public int payloadLength() {
        return payload.length;
    }

    /** Whether the payload equals {@code bytes}, without a copy. */
    public boolean payloadEquals(byte[] bytes) {
        return Arrays.equals(payload, bytes);
    }

    /**
     * Whether a MAC under a key of the receiver's {@link DeploymentKeyRing} vouched for the sender's
     * name, the transfer id, the payload and the receiver, and the message was not seen before.
     */
    public boolean authenticated() {
        return authenticated;
    }

    /**
     * How many notifications of this sender the receiver dropped, its queue full, since it last
     * delivered one of this sender's (0 almost always): nothing is lost silently.
     */
    public long droppedBefore() {
        return droppedBefore;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Notification n && sender.equals(n.sender) && senderAgent.equals(n.senderAgent)
                && kind == n.kind && transferId == n.transferId && Arrays.equals(payload, n.payload)
                && authenticated == n.authenticated && droppedBefore == n.droppedBefore;
    }

    @Override
    public int hashCode() {
        return Objects.hash(sender, kind, transferId, Arrays.hashCode(payload));
    }

    @Override
    public String toString() {
        boolean printable = true;
        for (byte b : payload) {
            printable &= b >= 0x20 && b < 0x7f;
        }
        String body = printable ? "'" + new String(payload, java.nio.charset.StandardCharsets.US_ASCII) + "'"
                : "0x" + HexFormat.of().formatHex(payload, 0, Math.min(payload.length, 32))
                        + (payload.length > 32 ? "..." : "");
        return "Notification[" + kind + (transferId >= 0 ? " #" + transferId : "") + " from '" + sender + "'"
                + (sender.equals(senderAgent) ? "" : " (agent '" + senderAgent + "')") + ", " + payload.length + " B "
                + body + (authenticated ? ", authenticated" : "") + (droppedBefore > 0 ? ", " + droppedBefore
                + " dropped before it" : "") + "]";
    }
}
