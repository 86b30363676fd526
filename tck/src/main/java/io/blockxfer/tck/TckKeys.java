package io.blockxfer.tck;

import io.blockxfer.transport.DeploymentKeyRing;
import java.util.Base64;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The key rings the kit made, with their key bytes, so that a harness whose targets run in another
 * process can give a target the same ring ({@link DeploymentKeyRing} never hands its keys out).
 * Only rings made by {@link #ring(String)} are known.
 *
 * <p><b>Thread safety:</b> thread-safe (a synchronized weak map).
 */
final class TckKeys {

    private static final Map<DeploymentKeyRing, String> KNOWN = Collections.synchronizedMap(new WeakHashMap<>());

    private TckKeys() {
    }

    /** A fresh ring of one random key under {@code keyId}. */
    static DeploymentKeyRing ring(String keyId) {
        byte[] key = new byte[DeploymentKeyRing.MIN_KEY_BYTES];
        new java.security.SecureRandom().nextBytes(key);
        DeploymentKeyRing ring = DeploymentKeyRing.of(keyId, key);
        KNOWN.put(ring, keyId + "=" + Base64.getEncoder().encodeToString(key));
        return ring;
    }

    /** {@code ID=BASE64KEY} of a ring this class made. */
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
        int eq = encoded.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException("not ID=BASE64KEY: " + encoded);
        }
        return DeploymentKeyRing.of(encoded.substring(0, eq), Base64.getDecoder().decode(encoded.substring(eq + 1)));
    }
}
