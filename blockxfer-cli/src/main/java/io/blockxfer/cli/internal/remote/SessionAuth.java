package io.blockxfer.cli.internal.remote;

import io.blockxfer.cli.internal.HmacSha256;
import io.blockxfer.cli.internal.KeyFile;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Authenticates the frames of one bench control connection with the deployment key, or passes
 * them through unchanged when there is none ({@link #none()}).
 *
 * <p>Each key K of the key file gives a channel key Kc = HMAC(K, {@value #PURPOSE}), so channel
 * tags never share a key with descriptor signatures. For each connection the server draws a
 * nonce Ns and sends it in its challenge; the client draws a nonce Nc and sends it in clear in
 * front of its first frame; both derive the session key Ks = HMAC(Kc, Ns || Nc). Every frame
 * then carries tag = HMAC(Ks, direction || sequence number || payload): the direction is one byte
 * ({@code C} from the client, {@code S} from the server), the sequence number counts that
 * direction's frames from 0 (8 bytes, big-endian). The tag is checked, in constant time, before
 * the payload is parsed. So a stranger without a key cannot drive the server; a frame changed,
 * dropped, reordered or replayed within a connection fails its tag; and a frame recorded on one
 * connection fails on any other, because Ks depends on both nonces. The server tries every key
 * of its file on the client's first frame (keys rotate like the descriptor key ring); the key
 * that verifies it is the session's. A stream connection (the TCP ceiling) proves the key with
 * HMAC(Ks, {@code T} || token). Frames are authenticated, not encrypted.
 *
 * <p>Wire form of a frame's body (after its 4-byte length): the client's first frame is
 * {@code Nc (32) | tag (32) | payload}, every other frame {@code tag (32) | payload}.
 *
 * <p><b>Thread safety:</b> not thread-safe; one per connection, used by one thread at a time.
 */
final class SessionAuth {

    /** The length of a nonce in bytes. */
    static final int NONCE_BYTES = 32;
    /** The length of a tag in bytes. */
    static final int TAG_BYTES = HmacSha256.BYTES;
    /** What the channel keys are derived for. */
    static final String PURPOSE = "blockxfer bench control channel, protocol 2";
    /** The name of the scheme in the server's challenge. */
    static final String SCHEME = "hmac-sha256";
    /** The name of no scheme in the server's challenge. */
    static final String NO_SCHEME = "none";

    private static final byte FROM_CLIENT = 'C';
    private static final byte FROM_SERVER = 'S';
    private static final byte STREAM = 'T';
    private static final SecureRandom RANDOM = new SecureRandom();

    private final boolean keyed;
    private final boolean server;
    private final Map<String, byte[]> channelKeys;
    private final byte[] serverNonce;
    private final byte[] clientNonce;
    /** Null until the client's first frame agrees on a key (always null when not keyed). */
    private byte @Nullable [] sessionKey;
    private @Nullable String keyId;
    private long sent;
    private long received;

    private SessionAuth(boolean keyed, boolean server, Map<String, byte[]> channelKeys, byte[] serverNonce,
            byte[] clientNonce) {
        this.keyed = keyed;
        this.server = server;
        this.channelKeys = channelKeys;
        this.serverNonce = serverNonce;
        this.clientNonce = clientNonce;
    }

    /** Plain frames: nothing added, nothing checked. */
    static SessionAuth none() {
        return new SessionAuth(false, false, Map.of(), new byte[NONCE_BYTES], new byte[0]);
    }

    /** The server's end of a new connection, with a fresh nonce; every key of {@code keys} is accepted. */
    static SessionAuth server(KeyFile keys) {
        return new SessionAuth(true, true, keys.derivedKeys(PURPOSE), nonce(), new byte[0]);
    }

    /** The client's end, with a fresh nonce, under the signing key of {@code keys}. */
    static SessionAuth client(KeyFile keys, byte[] serverNonce) {
        if (serverNonce.length != NONCE_BYTES) {
            throw new IllegalArgumentException("a nonce has " + NONCE_BYTES + " bytes, not " + serverNonce.length);
        }
        Map<String, byte[]> signing = Map.of(keys.signingKeyId(), keys.derivedKeys(PURPOSE).get(keys.signingKeyId()));
        return new SessionAuth(true, false, signing, serverNonce.clone(), nonce());
    }

    private static byte[] nonce() {
        byte[] n = new byte[NONCE_BYTES];
        RANDOM.nextBytes(n);
        return n;
    }

    /** Whether frames are authenticated. */
    boolean keyed() {
        return keyed;
    }

    /** The server's nonce (zeros when not keyed). */
    byte[] serverNonce() {
        return serverNonce.clone();
    }

    /** The key ids this end accepts, in the key file's order. */
    List<String> keyIds() {
        return List.copyOf(channelKeys.keySet());
    }

    /** The id of the key the session runs under, once the client's first frame was sent or verified. */
    Optional<String> keyId() {
        return Optional.ofNullable(keyId);
    }

    /** Whether the session key is agreed (always false when not keyed). */
    boolean established() {
        return sessionKey != null;
    }

    /** The body to send for {@code payload}: it with its tag (and, first from the client, its nonce). */
    byte[] seal(byte[] payload) {
        if (!keyed) {
            return payload;
        }
        byte[] prefix = new byte[0];
        byte[] session = sessionKey;
        if (session == null) {
            if (server) {
                throw new IllegalStateException("the server seals nothing before the client's first frame");
            }
            Map.Entry<String, byte[]> key = channelKeys.entrySet().iterator().next();
            session = establish(key.getKey(), key.getValue(), clientNonce);
            prefix = clientNonce;
        }
        byte[] tag = tag(session, server ? FROM_SERVER : FROM_CLIENT, sent++, payload);
        return concat(prefix, tag, payload);
    }

    /**
     * The payload of a received body, once its tag is verified.
     *
     * @throws UnauthenticatedFrameException if the tag is missing or wrong
     */
    byte[] open(byte[] body) throws UnauthenticatedFrameException {
        if (!keyed) {
            return body;
        }
        if (sessionKey == null) {
            if (!server) {
                throw new IllegalStateException("the client opens nothing before it sent its first frame");
            }
            return openFirst(body);
        }
        String from = server ? "client" : "server";
        if (body.length < TAG_BYTES) {
            throw new UnauthenticatedFrameException("frame " + received + " from the " + from + " carries no tag");
        }
        byte[] payload = Arrays.copyOfRange(body, TAG_BYTES, body.length);
        byte[] expected = tag(sessionKey, server ? FROM_CLIENT : FROM_SERVER, received, payload);
        if (!MessageDigest.isEqual(expected, Arrays.copyOf(body, TAG_BYTES))) {
            throw new UnauthenticatedFrameException("frame " + received + " from the " + from + " is not"
                    + " authenticated: changed, replayed, out of order, or sealed with another key");
        }
        received++;
        return payload;
    }

    /** The client's first frame: tried under every key; the one that verifies it is the session's. */
    private byte[] openFirst(byte[] body) throws UnauthenticatedFrameException {
        if (body.length < NONCE_BYTES + TAG_BYTES) {
            throw new UnauthenticatedFrameException("the client's first frame is not authenticated: it carries no"
                    + " nonce and tag (a client without a key?); this server accepts keys " + keyIds());
        }
        byte[] nonce = Arrays.copyOf(body, NONCE_BYTES);
        byte[] tag = Arrays.copyOfRange(body, NONCE_BYTES, NONCE_BYTES + TAG_BYTES);
        byte[] payload = Arrays.copyOfRange(body, NONCE_BYTES + TAG_BYTES, body.length);
        for (Map.Entry<String, byte[]> key : channelKeys.entrySet()) {
            byte[] candidate = HmacSha256.of(key.getValue(), serverNonce, nonce);
            if (MessageDigest.isEqual(tag(candidate, FROM_CLIENT, 0, payload), tag)) {
                sessionKey = candidate;
                keyId = key.getKey();
                received = 1;
                return payload;
            }
        }
        throw new UnauthenticatedFrameException("the client's first frame is not authenticated by any key of this"
                + " server " + keyIds() + ": the client holds another key, or the same key id with other key"
                + " material, or no key");
    }

    private byte[] establish(String id, byte[] channelKey, byte[] nonce) {
        byte[] session = HmacSha256.of(channelKey, serverNonce, nonce);
        sessionKey = session;
        keyId = id;
        return session;
    }

    /** What a stream connection sends after its token to prove the key; empty when not keyed. */
    byte[] streamProof(long token) {
        if (!keyed) {
            return new byte[0];
        }
        if (sessionKey == null) {
            throw new IllegalStateException("no session key yet");
        }
        return tag(sessionKey, STREAM, token, new byte[0]);
    }

    private static byte[] tag(byte[] key, byte direction, long sequence, byte[] payload) {
        byte[] header = ByteBuffer.allocate(1 + Long.BYTES).put(direction).putLong(sequence).array();
        return HmacSha256.of(key, header, payload);
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        ByteBuffer b = ByteBuffer.allocate(n);
        for (byte[] p : parts) {
            b.put(p);
        }
        return b.array();
    }

    @Override
    public String toString() {
        return keyed ? "frames authenticated (" + SCHEME + ", key " + (keyId == null ? "not agreed yet" : "'" + keyId
                + "'") + ")" : "plain frames";
    }
}
