package io.blockxfer.transport.internal.notify;

import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.Notification;
import io.blockxfer.transport.PeerDescriptor;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.jspecify.annotations.Nullable;

/**
 * blockxfer's notification frame: what one transport's engine carries to another's, and what the
 * receiving transport checks before it queues a {@link Notification}.
 *
 * <p>Layout, little-endian: magic {@code "BXN1"}, u8 flags (1 when signed), u8 kind (1 WRITE, 2
 * READ, 3 MESSAGE), u16 payload length, u64 sender identity, u64 receiver identity, u64 stream,
 * u64 sequence, i64 transfer id (-1 for a message), i64 sent-at (epoch milliseconds), u8 length +
 * sender agent name (1-64 printable ASCII), the payload (at most
 * {@link Notification#MAX_PAYLOAD_BYTES}), and when signed: u8 length + key id, then the
 * HMAC-SHA-256 ({@link DeploymentKeyRing}, domain {@value #MAC_DOMAIN}) of every byte before it.
 * Nothing may follow.
 *
 * <p>An identity is the first 8 bytes of the SHA-256 of a transport's unsigned descriptor
 * ({@link #identityOf}): the receiver names the sender by the peer id under which it registered the
 * descriptor with that identity, and refuses a frame addressed to another identity (a stale sender
 * writing to a process that reused an address, or a frame replayed to another receiver). A stream
 * is one sender registration's random id, and its sequence counts from 1, so that a receiver with
 * a key ring refuses a replayed frame.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class NotificationFrames {

    /** The MAC domain of a signed frame. */
    public static final String MAC_DOMAIN = "blockxfer.notification.v1";
    /** "BXN1", little-endian. */
    static final int MAGIC = 0x314E5842;
    static final int FLAG_SIGNED = 1;
    static final int KIND_WRITE = 1;
    static final int KIND_READ = 2;
    static final int KIND_MESSAGE = 3;
    static final int FIXED_BYTES = 57;
    private static final int MAX_NAME = 64;
    private static final VarHandle I16 = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle I32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle I64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private NotificationFrames() {
    }

    /**
     * A frame taken apart; {@code macOffset} is -1 when unsigned. Its payload array is the frame's
     * own copy, handed on as it is; frames are never compared.
     */
    @SuppressWarnings("ArrayRecordComponent")
    public record Frame(Notification.Kind kind, long sender, long receiver, long stream, long sequence, long transferId,
            long sentAtMillis, String agentName, byte[] payload, @Nullable String keyId, int macOffset) {

        public boolean signed() {
            return keyId != null;
        }
    }

    /** The identity of a transport that publishes {@code descriptor}: 8 bytes of its unsigned form's SHA-256. */
    public static long identityOf(PeerDescriptor descriptor) {
        byte[] encoded = descriptor.unsigned().encode();
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(encoded);
            return (long) I64.get(hash, 0);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available in this JVM", e);
        }
    }

    /** Whether {@code message} starts as a blockxfer frame does (it may still be malformed). */
    public static boolean looksLikeFrame(byte[] message) {
        return message.length >= 4 && (int) I32.get(message, 0) == MAGIC;
    }

    /**
     * Encodes a frame; signs it when {@code ring} is not null.
     *
     * @param agentName the sender's agent name (1-64 printable ASCII, as {@code TransportConfig} checks)
     */
    public static byte[] encode(Notification.Kind kind, long sender, long receiver, long stream, long sequence,
            long transferId, long sentAtMillis, String agentName, byte[] payload, @Nullable DeploymentKeyRing ring) {
        byte[] name = agentName.getBytes(StandardCharsets.US_ASCII);
        String keyId = ring == null ? null : ring.signingKeyId();
        int signed = keyId == null ? 0 : 1 + keyId.length() + DeploymentKeyRing.MAC_LENGTH;
        byte[] out = new byte[FIXED_BYTES + name.length + payload.length + signed];
        I32.set(out, 0, MAGIC);
        out[4] = (byte) (keyId == null ? 0 : FLAG_SIGNED);
        out[5] = (byte) code(kind);
        I16.set(out, 6, (short) payload.length);
        I64.set(out, 8, sender);
        I64.set(out, 16, receiver);
        I64.set(out, 24, stream);
        I64.set(out, 32, sequence);
        I64.set(out, 40, transferId);
        I64.set(out, 48, sentAtMillis);
        out[56] = (byte) name.length;
        System.arraycopy(name, 0, out, FIXED_BYTES, name.length);
        int at = FIXED_BYTES + name.length;
        System.arraycopy(payload, 0, out, at, payload.length);
        at += payload.length;
        if (ring != null && keyId != null) {
            out[at++] = (byte) keyId.length();
            for (int i = 0; i < keyId.length(); i++) {
                out[at++] = (byte) keyId.charAt(i);
            }
            ring.sign(MAC_DOMAIN, out, 0, at, out, at);
        }
        return out;
    }

    private static int code(Notification.Kind kind) {
        return switch (kind) {
            case WRITE -> KIND_WRITE;
            case READ -> KIND_READ;
            case MESSAGE -> KIND_MESSAGE;
            case FOREIGN -> throw new IllegalArgumentException("a FOREIGN notification has no frame");
        };
    }

    /**
     * Takes a frame apart, checking every field; the MAC is not checked here.
     *
     * @return the frame, or null when {@code message} is not a well-formed frame
     */
    public static @Nullable Frame decode(byte[] message) {
        return decode(message, null);
    }

    /**
     * {@link #decode(byte[])}, reusing {@code knownName} as the frame's agent name when the frame
     * names the same agent (a receiver passes the last name it decoded: one string less a frame).
     */
    public static @Nullable Frame decode(byte[] message, @Nullable String knownName) {
        if (message.length < FIXED_BYTES + 1 || !looksLikeFrame(message)) {
            return null;
        }
        int flags = message[4] & 0xff;
        int kindCode = message[5] & 0xff;
        int payloadLength = (short) I16.get(message, 6) & 0xffff;
        int nameLength = message[56] & 0xff;
        if ((flags & ~FLAG_SIGNED) != 0 || kindCode < KIND_WRITE || kindCode > KIND_MESSAGE
                || payloadLength > Notification.MAX_PAYLOAD_BYTES || nameLength == 0 || nameLength > MAX_NAME) {
            return null;
        }
        Notification.Kind kind = kindCode == KIND_WRITE ? Notification.Kind.WRITE
                : kindCode == KIND_READ ? Notification.Kind.READ : Notification.Kind.MESSAGE;
        long transferId = (long) I64.get(message, 40);
        if (kind == Notification.Kind.MESSAGE ? transferId != -1 : transferId < 0) {
            return null;
        }
        int at = FIXED_BYTES;
        if (message.length < at + nameLength + payloadLength) {
            return null;
        }
        for (int i = 0; i < nameLength; i++) {
            int c = message[at + i];
            if (c <= 0x20 || c >= 0x7f) {
                return null;
            }
        }
        String name = knownName != null && sameName(knownName, message, at, nameLength) ? knownName
                : new String(message, at, nameLength, StandardCharsets.US_ASCII);
        at += nameLength;
        byte[] payload = new byte[payloadLength];
        System.arraycopy(message, at, payload, 0, payloadLength);
        at += payloadLength;
        String keyId = null;
        int macOffset = -1;
        if ((flags & FLAG_SIGNED) != 0) {
            if (at >= message.length) {
                return null;
            }
            int keyLength = message[at++] & 0xff;
            if (keyLength == 0 || keyLength > DeploymentKeyRing.MAX_KEY_ID_LENGTH
                    || message.length != at + keyLength + DeploymentKeyRing.MAC_LENGTH) {
                return null;
            }
            for (int i = 0; i < keyLength; i++) {
                int c = message[at + i];
                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_'
                        || c == '-')) {
                    return null;
                }
            }
            keyId = new String(message, at, keyLength, StandardCharsets.US_ASCII);
            macOffset = at + keyLength;
        } else if (at != message.length) {
            return null;
        }
        return new Frame(kind, (long) I64.get(message, 8), (long) I64.get(message, 16), (long) I64.get(message, 24),
                (long) I64.get(message, 32), transferId, (long) I64.get(message, 48), name, payload, keyId, macOffset);
    }

    private static boolean sameName(String known, byte[] message, int at, int length) {
        if (known.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (known.charAt(i) != message[at + i]) {
                return false;
            }
        }
        return true;
    }

    /** Whether a signed frame's MAC matches under {@code ring}. */
    public static boolean authentic(byte[] message, Frame frame, DeploymentKeyRing ring) {
        String keyId = frame.keyId();
        return keyId != null && ring.matches(MAC_DOMAIN, keyId, message, 0, frame.macOffset(), message,
                frame.macOffset());
    }
}
