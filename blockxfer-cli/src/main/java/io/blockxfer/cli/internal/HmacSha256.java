package io.blockxfer.cli.internal;

import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA-256 of a key over the concatenation of byte arrays, for the key derivations and frame
 * tags of the bench control channel.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class HmacSha256 {

    /** The length of a tag in bytes. */
    public static final int BYTES = 32;

    private static final String ALGORITHM = "HmacSHA256";

    private HmacSha256() {
    }

    /** HMAC-SHA-256 under {@code key} of {@code parts}, one after the other. */
    public static byte[] of(byte[] key, byte[]... parts) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            for (byte[] part : parts) {
                mac.update(part);
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(ALGORITHM + " is not available in this JVM", e);
        }
    }
}
