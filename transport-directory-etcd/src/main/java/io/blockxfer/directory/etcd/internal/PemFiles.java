package io.blockxfer.directory.etcd.internal;

import io.blockxfer.directory.etcd.EtcdTlsException;
import io.blockxfer.directory.etcd.EtcdTlsException.Reason;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;
import org.jspecify.annotations.Nullable;

/**
 * Reads PEM files as etcd's tooling, openssl and cert-manager write them: certificates (one or
 * several, a CA bundle or a chain) and an unencrypted private key, RSA or EC, in PKCS#1
 * ({@code BEGIN RSA PRIVATE KEY}), PKCS#8 ({@code BEGIN PRIVATE KEY}) or SEC1
 * ({@code BEGIN EC PRIVATE KEY}, with or without a leading {@code BEGIN EC PARAMETERS}), through
 * BouncyCastle's parser; the keys are converted by the JDK's own providers. Every failure is an
 * {@link EtcdTlsException} of {@link Reason#BAD_FILE} naming the file and what is wrong.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class PemFiles {

    private PemFiles() {
    }

    /** The certificates of {@code text}, read from {@code file} (for messages), in their order; at least one. */
    public static List<X509Certificate> certificates(Path file, byte[] text, String what) {
        List<X509Certificate> certificates = new ArrayList<>();
        JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
        for (Object o : objects(file, text, what)) {
            if (o instanceof X509CertificateHolder holder) {
                try {
                    certificates.add(converter.getCertificate(holder));
                } catch (CertificateException e) {
                    throw bad(file, what, "a certificate in it cannot be read (" + e.getMessage() + ")", e);
                }
            }
        }
        if (certificates.isEmpty()) {
            throw bad(file, what, "it holds no certificate (no -----BEGIN CERTIFICATE----- block)", null);
        }
        return certificates;
    }

    /** The one private key of {@code text}, read from {@code file} (for messages). */
    public static PrivateKey privateKey(Path file, byte[] text, String what) {
        JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        List<PrivateKey> keys = new ArrayList<>();
        for (Object o : objects(file, text, what)) {
            try {
                if (o instanceof PEMKeyPair pair) {
                    keys.add(converter.getPrivateKey(pair.getPrivateKeyInfo())); // PKCS#1 or SEC1
                } else if (o instanceof PrivateKeyInfo info) {
                    keys.add(converter.getPrivateKey(info)); // PKCS#8
                } else if (o instanceof PEMEncryptedKeyPair || o instanceof PKCS8EncryptedPrivateKeyInfo) {
                    throw bad(file, what, "the key is encrypted; etcd's clients (and this one) need an unencrypted"
                            + " key (openssl pkey -in KEY -out PLAIN)", null);
                }
            } catch (IOException e) {
                throw bad(file, what, "its key cannot be read (" + e.getMessage() + ")", e);
            }
        }
        if (keys.size() != 1) {
            throw bad(file, what, keys.isEmpty()
                    ? "it holds no private key (expected -----BEGIN PRIVATE KEY-----, BEGIN RSA PRIVATE KEY or"
                            + " BEGIN EC PRIVATE KEY)"
                    : "it holds " + keys.size() + " private keys, not one", null);
        }
        return keys.getFirst();
    }

    /**
     * Whether {@code key} is the private key of {@code publicKey}: a test message signed with the one
     * is verified with the other.
     */
    public static boolean matches(PrivateKey key, PublicKey publicKey) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "EdDSA", "Ed25519" -> "Ed25519";
            default -> null;
        };
        if (algorithm == null || !key.getAlgorithm().equals(publicKey.getAlgorithm())) {
            return algorithm == null; // an unknown kind: left to the handshake
        }
        try {
            byte[] message = "blockxfer key check".getBytes(StandardCharsets.US_ASCII);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(message);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(publicKey);
            verifier.update(message);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    private static List<Object> objects(Path file, byte[] text, String what) {
        List<Object> objects = new ArrayList<>();
        try (PEMParser parser = new PEMParser(new StringReader(new String(text, StandardCharsets.US_ASCII)))) {
            Object o;
            while ((o = parser.readObject()) != null) {
                if (!(o instanceof ASN1ObjectIdentifier) && !(o instanceof X9ECParameters)) { // BEGIN EC PARAMETERS
                    objects.add(o);
                }
            }
        } catch (IOException | RuntimeException e) {
            throw bad(file, what, "it is not valid PEM (" + e.getMessage() + ")", e);
        }
        if (objects.isEmpty()) {
            throw bad(file, what, "it holds no PEM block", null);
        }
        return objects;
    }

    /** "the client certificate file /x/y.pem cannot be used: PROBLEM". */
    static EtcdTlsException bad(Path file, String what, String problem, @Nullable Throwable cause) {
        return new EtcdTlsException(Reason.BAD_FILE, null, "the " + what + " file " + file + " cannot be used: "
                + problem, cause);
    }
}
