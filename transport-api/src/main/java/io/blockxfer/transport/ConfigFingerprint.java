package io.blockxfer.transport;

import io.blockxfer.transport.internal.CanonicalJson;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

/**
 * The compatibility fingerprint of a transport's config fields, identical to the Python
 * original's: the SHA-256 of {@code json.dumps(fields, sort_keys=True, separators=(",", ":"))},
 * first 16 lowercase hex characters; {@code ""} when there are no fields. Peers whose
 * fingerprints differ are rejected.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class ConfigFingerprint {

    private ConfigFingerprint() {
    }

    /**
     * The fingerprint of {@code fields}; {@code ""} for {@code null} or an empty map.
     *
     * @throws IllegalArgumentException if a value has no JSON form or a key is not a string
     */
    public static String of(Map<String, ?> fields) {
        if (fields == null || fields.isEmpty()) {
            return "";
        }
        return ofCanonicalJson(canonicalJson(fields));
    }

    /** The canonical JSON text the fingerprint hashes. */
    public static String canonicalJson(Map<String, ?> fields) {
        return CanonicalJson.write(fields);
    }

    static String ofCanonicalJson(String json) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(json.getBytes(StandardCharsets.US_ASCII));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }
}
