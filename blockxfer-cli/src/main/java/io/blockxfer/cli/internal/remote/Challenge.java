package io.blockxfer.cli.internal.remote;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;

/**
 * The server's first frame on a control connection, always plain: its nonce for the connection,
 * whether it authenticates frames with a deployment key, and the ids of the keys it accepts (ids
 * are not secret; they let a client name a mismatch before it sends anything).
 *
 * <p><b>Thread safety:</b> immutable (the nonce is copied in and out).
 *
 * @param nonce the server's nonce, {@value SessionAuth#NONCE_BYTES} bytes
 * @param keyed whether frames after this one are authenticated
 * @param keyIds the key ids the server accepts; empty when not keyed
 */
@SuppressWarnings("ArrayRecordComponent") // a frame's fields, never compared or hashed; nonce() hands out copies
record Challenge(byte[] nonce, boolean keyed, List<String> keyIds) {

    private static final int MAX_KEYS = 64;

    /** Copies the nonce and the ids. */
    Challenge {
        nonce = nonce.clone();
        keyIds = List.copyOf(keyIds);
    }

    /** The challenge of a connection authenticated (or not) by {@code auth}. */
    static Challenge of(SessionAuth auth) {
        return new Challenge(auth.serverNonce(), auth.keyed(), auth.keyIds());
    }

    @Override
    public byte[] nonce() {
        return nonce.clone();
    }

    /** As a frame. */
    Message toMessage() {
        Message m = Message.of("challenge");
        m.putBytes("nonce", nonce);
        m.node().put("auth", keyed ? SessionAuth.SCHEME : SessionAuth.NO_SCHEME);
        ArrayNode ids = m.node().putArray("keyIds");
        keyIds.forEach(ids::add);
        return m;
    }

    /**
     * Reads a challenge frame, strictly.
     *
     * @throws ProtocolException if a field is missing, of the wrong type, or out of range
     */
    static Challenge from(Message m) throws ProtocolException {
        if (!m.type().equals("challenge")) {
            throw new ProtocolException("expected 'challenge', got '" + m.type() + "'");
        }
        byte[] nonce = m.bytes("nonce", SessionAuth.NONCE_BYTES);
        if (nonce.length != SessionAuth.NONCE_BYTES) {
            throw new ProtocolException("challenge: field 'nonce' must hold " + SessionAuth.NONCE_BYTES + " bytes");
        }
        String auth = m.text("auth", 32);
        boolean keyed = switch (auth) {
            case SessionAuth.SCHEME -> true;
            case SessionAuth.NO_SCHEME -> false;
            default -> throw new ProtocolException("challenge: unknown authentication '" + auth + "'");
        };
        JsonNode list = m.node().path("keyIds");
        if (!list.isArray() || list.size() > MAX_KEYS) {
            throw new ProtocolException("challenge: field 'keyIds' must be an array of at most " + MAX_KEYS + " ids");
        }
        List<String> ids = new ArrayList<>();
        for (JsonNode id : list) {
            if (!id.isString() || id.stringValue().isEmpty() || id.stringValue().length() > 64) {
                throw new ProtocolException("challenge: a key id must be a string of 1 to 64 characters");
            }
            ids.add(id.stringValue());
        }
        if (keyed == ids.isEmpty()) {
            throw new ProtocolException("challenge: " + (keyed ? "authentication without key ids" : "key ids without"
                    + " authentication"));
        }
        return new Challenge(nonce, keyed, ids);
    }

    @Override
    public String toString() {
        return "Challenge[" + (keyed ? "keys " + keyIds : "no key") + ", nonce " + Base64.getEncoder()
                .encodeToString(nonce) + "]";
    }
}
