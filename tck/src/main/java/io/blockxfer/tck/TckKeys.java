package io.blockxfer.tck;

import io.blockxfer.transport.DeploymentKeyRing;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The key rings the kit made, with their key bytes, so that a harness whose targets run in another
 * process can give a target the same ring ({@link DeploymentKeyRing} never hands its keys out).
 * Only rings made by {@link #ring(String)} or {@link #ring(Map)} are known.
 *
 * <p><b>Thread safety:</b> thread-safe (a synchronized weak map).
 */
final class TckKeys {

    private static final Map<DeploymentKeyRing, String> KNOWN = Collections.synchronizedMap(new WeakHashMap<>());
    private static final SecureRandom RANDOM = new SecureRandom();

    private TckKeys() {
    }

    /** {@value DeploymentKeyRing#MIN_KEY_BYTES} random bytes. */
    static byte[] randomKey() {
        byte[] key = new byte[DeploymentKeyRing.MIN_KEY_BYTES];
        RANDOM.nextBytes(key);
        return key;
    }

    /** A fresh ring of one random key under {@code keyId}. */
    static DeploymentKeyRing ring(String keyId) {
        Map<String, byte[]> keys = new LinkedHashMap<>();
        keys.put(keyId, randomKey());
        return ring(keys);
    }

    /** A ring of {@code keys} by id: it signs with the first and also accepts the others. */
    static DeploymentKeyRing ring(Map<String, byte[]> keys) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("a key ring needs a signing key");
        }
        DeploymentKeyRing ring = null;
        List<String> encoded = new ArrayList<>();
        for (Map.Entry<String, byte[]> k : keys.entrySet()) {
            ring = ring == null ? DeploymentKeyRing.of(k.getKey(), k.getValue())
                    : ring.withVerificationKey(k.getKey(), k.getValue());
            encoded.add(k.getKey() + "=" + Base64.getEncoder().encodeToString(k.getValue()));
        }
        DeploymentKeyRing made = java.util.Objects.requireNonNull(ring, "a ring has a key");
        KNOWN.put(made, String.join(",", encoded));
        return made;
    }

    /** {@code ID=BASE64KEY[,ID=BASE64KEY...]}, the signing key first, of a ring this class made. */
    static String encode(DeploymentKeyRing ring) {
        String encoded = KNOWN.get(ring);
        if (encoded == null) {
            throw new IllegalArgumentException("a target in another process can only be given a key ring the kit"
                    + " made (" + ring + ")");
        }
        return encoded;
    }

    /** The ring {@link #encode} described. */
    static DeploymentKeyRing decode(String encoded) {
        Map<String, byte[]> keys = new LinkedHashMap<>();
        for (String item : encoded.split(",", -1)) {
            int eq = item.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("not ID=BASE64KEY: " + item);
            }
            keys.put(item.substring(0, eq), Base64.getDecoder().decode(item.substring(eq + 1)));
        }
        return ring(keys);
    }
}
