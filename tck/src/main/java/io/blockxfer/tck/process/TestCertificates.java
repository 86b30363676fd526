package io.blockxfer.tck.process;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.ECPrivateKey;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObject;

/**
 * Throwaway certificates for tests, made at run time (nothing is committed): certificate
 * authorities, server certificates with DNS and IP SANs, client certificates (valid, expired, not
 * yet valid, from another CA), with RSA or EC keys written as PKCS#1, PKCS#8 or SEC1 PEM, as
 * etcd's tooling, openssl and cert-manager write them. Needs BouncyCastle ({@code bcpkix}) on the
 * class path.
 *
 * <p><b>Thread safety:</b> thread-safe; each object is immutable.
 */
public final class TestCertificates {

    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());
    private static final SecureRandom RANDOM = new SecureRandom();

    private TestCertificates() {
    }

    /** A key's kind. */
    public enum KeyKind {
        /** RSA 2048. */
        RSA,
        /** EC on P-256. */
        EC
    }

    /** How a private key is written. */
    public enum KeyFormat {
        /** {@code BEGIN RSA PRIVATE KEY} or, for EC, SEC1's {@code BEGIN EC PRIVATE KEY} (openssl's "traditional"). */
        TRADITIONAL,
        /** {@code BEGIN PRIVATE KEY}. */
        PKCS8
    }

    /** A new key pair of {@code kind}. */
    public static KeyPair keyPair(KeyKind kind) {
        try {
            if (kind == KeyKind.RSA) {
                KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
                g.initialize(2048, RANDOM);
                return g.generateKeyPair();
            }
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A new self-signed CA named {@code cn}, valid from an hour ago for a day, with an EC key. */
    public static Ca ca(String cn) {
        KeyPair keys = keyPair(KeyKind.EC);
        Instant now = Instant.now();
        X500Principal name = new X500Principal("CN=" + cn + ",O=blockxfer tests");
        X509Certificate cert = sign(name, keys, name, keys.getPublic(), now.minus(Duration.ofHours(1)),
                now.plus(Duration.ofDays(1)), true, List.of(), List.of());
        return new Ca(cert, keys);
    }

    /** A certificate authority. */
    public static final class Ca {
        private final X509Certificate certificate;
        private final KeyPair keys;

        private Ca(X509Certificate certificate, KeyPair keys) {
            this.certificate = certificate;
            this.keys = keys;
        }

        /** Its self-signed certificate. */
        public X509Certificate certificate() {
            return certificate;
        }

        /**
         * A certificate for {@code cn}, for servers and clients both (etcd's members dial each other
         * and themselves with their server certificates), with DNS SANs {@code dnsNames} and IP SANs
         * {@code ips}, valid from {@code notBefore} to {@code notAfter}. An empty {@code cn} leaves the
         * CN out (etcd's gateway refuses client certificates with a CN once authentication is on).
         */
        public Issued issue(String cn, KeyKind kind, List<String> dnsNames, List<String> ips, Instant notBefore,
                Instant notAfter) {
            KeyPair pair = keyPair(kind);
            X509Certificate cert = sign(certificate.getSubjectX500Principal(), keys,
                    new X500Principal(cn.isEmpty() ? "O=blockxfer tests" : "CN=" + cn + ",O=blockxfer tests"),
                    pair.getPublic(), notBefore, notAfter, false,
                    dnsNames, ips);
            return new Issued(cert, pair.getPrivate(), this);
        }

        /** A server certificate for 127.0.0.1 and localhost, valid now for a day. */
        public Issued server(String cn) {
            Instant now = Instant.now();
            return issue(cn, KeyKind.EC, List.of("localhost"), List.of("127.0.0.1"), now.minus(Duration.ofHours(1)),
                    now.plus(Duration.ofDays(1)));
        }

        /** A client certificate for {@code cn} (etcd's user, without a password), valid now for a day. */
        public Issued client(String cn, KeyKind kind) {
            Instant now = Instant.now();
            return issue(cn, kind, List.of(), List.of(), now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)));
        }

        /** Writes its certificate as PEM to {@code file} (atomically) and returns it. */
        public Path write(Path file) {
            return writeAtomically(file, pem(certificate));
        }
    }

    /** A certificate and its key, issued by {@code issuer}. */
    public record Issued(X509Certificate certificate, PrivateKey key, Ca issuer) {

        /** Writes the certificate as PEM to {@code file} (atomically) and returns it. */
        public Path writeCertificate(Path file) {
            return writeAtomically(file, pem(certificate));
        }

        /** Writes the key as PEM in {@code format} to {@code file} (atomically) and returns it. */
        public Path writeKey(Path file, KeyFormat format) {
            try {
                return writeAtomically(file, format == KeyFormat.PKCS8 ? pem(new JcaPKCS8Generator(key, null))
                        : key.getAlgorithm().equals("EC") ? pem(sec1(key)) : pem(key));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /**
         * A JDK SSL context that presents this certificate and trusts {@code trusted}, for a test's
         * own TLS connections.
         */
        public SSLContext sslContext(X509Certificate... trusted) {
            try {
                char[] pass = "test".toCharArray();
                KeyStore keys = KeyStore.getInstance("PKCS12");
                keys.load(null, null);
                keys.setKeyEntry("client", key, pass, new X509Certificate[] {certificate});
                KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(keys, pass);
                KeyStore trust = KeyStore.getInstance("PKCS12");
                trust.load(null, null);
                for (int i = 0; i < trusted.length; i++) {
                    trust.setCertificateEntry("ca-" + i, trusted[i]);
                }
                TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init(trust);
                SSLContext context = SSLContext.getInstance("TLS");
                context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
                return context;
            } catch (GeneralSecurityException | IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /**
     * An EC key as SEC1 ({@code BEGIN EC PRIVATE KEY}) with its curve inside, as openssl writes it
     * (the JDK's PKCS#8 encoding keeps the curve in the algorithm identifier only).
     */
    private static PemObject sec1(PrivateKey key) throws IOException {
        PrivateKeyInfo info = PrivateKeyInfo.getInstance(key.getEncoded());
        ECPrivateKey inner = ECPrivateKey.getInstance(info.parsePrivateKey());
        ASN1Encodable curve = info.getPrivateKeyAlgorithm().getParameters();
        ECPrivateKey withCurve = inner.getPublicKey() == null ? new ECPrivateKey(256, inner.getKey(), curve)
                : new ECPrivateKey(256, inner.getKey(), inner.getPublicKey(), curve);
        return new PemObject("EC PRIVATE KEY", withCurve.getEncoded());
    }

    /** Writes the certificates of {@code cas} as one PEM bundle to {@code file} (atomically) and returns it. */
    public static Path writeBundle(Path file, Ca... cas) {
        StringBuilder sb = new StringBuilder();
        for (Ca ca : cas) {
            sb.append(pem(ca.certificate));
        }
        return writeAtomically(file, sb.toString());
    }

    /** An RSA key pair for etcd's JWT tokens: the private key (PKCS#1) and the public key, written to the two files. */
    public static void writeJwtKeys(Path privateKeyFile, Path publicKeyFile) {
        KeyPair pair = keyPair(KeyKind.RSA);
        writeAtomically(privateKeyFile, pem(pair.getPrivate()));
        writeAtomically(publicKeyFile, pem(pair.getPublic()));
    }

    /** {@code object} as PEM text. */
    public static String pem(Object object) {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
            writer.writeObject(object);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /** Writes {@code text} to a temporary file beside {@code file}, then moves it over {@code file}. */
    public static Path writeAtomically(Path file, String text) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            Path temp = Files.createTempFile(parent, file.getFileName().toString(), ".tmp");
            Files.writeString(temp, text, StandardCharsets.US_ASCII);
            Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static X509Certificate sign(X500Principal issuer, KeyPair issuerKeys, X500Principal subject,
            java.security.PublicKey publicKey, Instant notBefore, Instant notAfter, boolean ca, List<String> dnsNames,
            List<String> ips) {
        try {
            JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(issuer,
                    BigInteger.valueOf(SERIAL.incrementAndGet()), Date.from(notBefore), Date.from(notAfter), subject,
                    publicKey);
            JcaX509ExtensionUtils utils = new JcaX509ExtensionUtils();
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
            builder.addExtension(Extension.subjectKeyIdentifier, false, utils.createSubjectKeyIdentifier(publicKey));
            builder.addExtension(Extension.authorityKeyIdentifier, false,
                    utils.createAuthorityKeyIdentifier(issuerKeys.getPublic()));
            if (ca) {
                builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            } else {
                builder.addExtension(Extension.keyUsage, true,
                        new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
                builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(
                        new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
                List<GeneralName> names = new ArrayList<>();
                for (String dns : dnsNames) {
                    names.add(new GeneralName(GeneralName.dNSName, dns));
                }
                for (String ip : ips) {
                    names.add(new GeneralName(GeneralName.iPAddress, InetAddress.getByName(ip).getHostAddress()));
                }
                if (!names.isEmpty()) {
                    builder.addExtension(Extension.subjectAlternativeName, false,
                            new GeneralNames(names.toArray(GeneralName[]::new)));
                }
            }
            String algorithm = issuerKeys.getPrivate().getAlgorithm().equals("RSA") ? "SHA256withRSA"
                    : "SHA256withECDSA";
            X509CertificateHolder holder = builder.build(new JcaContentSignerBuilder(algorithm)
                    .build(issuerKeys.getPrivate()));
            return new JcaX509CertificateConverter().getCertificate(holder);
        } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
            throw new IllegalStateException("cannot make a test certificate: " + e, e);
        }
    }
}
