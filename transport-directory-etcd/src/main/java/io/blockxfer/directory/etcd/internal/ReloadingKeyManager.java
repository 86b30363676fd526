package io.blockxfer.directory.etcd.internal;

import io.blockxfer.directory.etcd.EtcdTlsException;
import io.blockxfer.directory.etcd.EtcdTlsException.Reason;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import org.jspecify.annotations.Nullable;

/**
 * This client's certificate chain and key for TLS to etcd, read from PEM files and read again
 * when they change: at each handshake the files' bytes are compared with those last read (they are
 * small, and handshakes are rare: one per connection), and a change is parsed and used from that
 * handshake on. Established connections keep what they were made with. A renewed pair that cannot
 * be used (a file half written, a key that does not match its certificate) is not taken: the
 * previous pair stays in use, with one warning per content seen, until the files are whole again.
 * Without files it presents no certificate and records that etcd asked for one
 * ({@link TlsFailures#noClientCertificate}).
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class ReloadingKeyManager extends X509ExtendedKeyManager {

    private static final System.Logger LOG = System.getLogger(ReloadingKeyManager.class.getName());

    /** One pair as read: its alias names its generation, so a chain and key are never mixed across a reload. */
    private static final class Material {
        final String alias;
        final X509Certificate[] chain;
        final PrivateKey key;
        final byte[] certText;
        final byte[] keyText;

        Material(String alias, X509Certificate[] chain, PrivateKey key, byte[] certText, byte[] keyText) {
            this.alias = alias;
            this.chain = chain;
            this.key = key;
            this.certText = certText;
            this.keyText = keyText;
        }
    }

    private final @Nullable Path certFile;
    private final @Nullable Path keyFile;
    private final TlsFailures failures;
    // guarded by this
    private @Nullable Material current;
    private @Nullable Material previous;
    private int generation;
    private byte @Nullable [] refusedCert;
    private byte @Nullable [] refusedKey;

    /**
     * A key manager presenting the pair in {@code certFile} and {@code keyFile} (both null: none).
     *
     * @throws EtcdTlsException {@link Reason#BAD_FILE} naming the file that cannot be used,
     *     {@link Reason#CLIENT_CERTIFICATE_EXPIRED} or {@link Reason#CLIENT_CERTIFICATE_NOT_YET_VALID}
     */
    public ReloadingKeyManager(@Nullable Path certFile, @Nullable Path keyFile, TlsFailures failures) {
        this.certFile = certFile;
        this.keyFile = keyFile;
        this.failures = failures;
        if (certFile != null && keyFile != null) {
            Material m = load(certFile, keyFile, read(certFile, "client certificate"), read(keyFile, "client key"));
            checkValidity(certFile, m.chain[0], Instant.now());
            current = m;
        }
    }

    /** Whether a certificate is configured. */
    public boolean configured() {
        return certFile != null;
    }

    /** The certificate presented now (after reading the files again if they changed); null without files. */
    public synchronized @Nullable X509Certificate certificate() {
        Material m = refresh();
        return m == null ? null : m.chain[0];
    }

    private static byte[] read(Path file, String what) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw PemFiles.bad(file, what, "it cannot be read (" + e + ")", e);
        }
    }

    private Material load(Path cert, Path key, byte[] certText, byte[] keyText) {
        List<X509Certificate> chain = PemFiles.certificates(cert, certText, "client certificate");
        PrivateKey privateKey = PemFiles.privateKey(key, keyText, "client key");
        if (!PemFiles.matches(privateKey, chain.getFirst().getPublicKey())) {
            throw PemFiles.bad(key, "client key", "it is not the key of the certificate in " + cert + " ("
                    + TlsFailures.describe(chain.getFirst()) + ")", null);
        }
        generation++;
        return new Material("client-" + generation, chain.toArray(X509Certificate[]::new), privateKey, certText,
                keyText);
    }

    /**
     * Refuses a client certificate outside its validity at {@code now}, naming the file and the dates.
     *
     * @throws EtcdTlsException {@link Reason#CLIENT_CERTIFICATE_EXPIRED} or
     *     {@link Reason#CLIENT_CERTIFICATE_NOT_YET_VALID}
     */
    static void checkValidity(Path file, X509Certificate c, Instant now) {
        try {
            c.checkValidity(java.util.Date.from(now));
        } catch (CertificateExpiredException e) {
            throw new EtcdTlsException(Reason.CLIENT_CERTIFICATE_EXPIRED, null, "the client certificate in " + file
                    + " (" + TlsFailures.describe(c) + ") expired on " + c.getNotAfter().toInstant() + "; renew it", e);
        } catch (CertificateNotYetValidException e) {
            throw new EtcdTlsException(Reason.CLIENT_CERTIFICATE_NOT_YET_VALID, null, "the client certificate in "
                    + file + " (" + TlsFailures.describe(c) + ") is valid only from " + c.getNotBefore().toInstant()
                    + "; check this host's clock", e);
        }
    }

    /** The current pair, read again first if the files changed and the new pair can be used. */
    private synchronized @Nullable Material refresh() {
        Path cert = certFile;
        Path key = keyFile;
        Material m = current;
        if (cert == null || key == null || m == null) {
            return m;
        }
        byte[] certText;
        byte[] keyText;
        try {
            certText = Files.readAllBytes(cert);
            keyText = Files.readAllBytes(key);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "cannot read the client certificate " + cert + " or key " + key + " (" + e
                    + "); the certificate read before stays in use");
            return m;
        }
        if (Arrays.equals(certText, m.certText) && Arrays.equals(keyText, m.keyText)) {
            return m;
        }
        if (Arrays.equals(certText, refusedCert) && Arrays.equals(keyText, refusedKey)) {
            return m; // refused before: said once
        }
        try {
            Material renewed = load(cert, key, certText, keyText);
            checkValidity(cert, renewed.chain[0], Instant.now());
            previous = m;
            current = renewed;
            LOG.log(Level.INFO, () -> "client certificate " + cert + " renewed: now "
                    + TlsFailures.describe(renewed.chain[0]) + ", valid until "
                    + renewed.chain[0].getNotAfter().toInstant());
            return renewed;
        } catch (EtcdTlsException e) {
            refusedCert = certText;
            refusedKey = keyText;
            LOG.log(Level.WARNING, "the renewed client certificate cannot be used, the one read before stays in use: "
                    + e.getMessage());
            return m;
        }
    }

    private synchronized @Nullable Material byAlias(@Nullable String alias) {
        for (Material m : new Material[] {current, previous}) {
            if (m != null && m.alias.equals(alias)) {
                return m;
            }
        }
        return null;
    }

    private @Nullable String choose(String @Nullable [] keyTypes, String endpoint) {
        if (certFile == null) {
            failures.noClientCertificate(endpoint);
            return null;
        }
        Material m = refresh();
        if (m == null) {
            return null;
        }
        if (keyTypes == null || keyTypes.length == 0 || Arrays.asList(keyTypes).contains(m.key.getAlgorithm())) {
            failures.presented(endpoint);
            return m.alias;
        }
        return null;
    }

    @Override
    public @Nullable String chooseEngineClientAlias(String @Nullable [] keyTypes, Principal @Nullable [] issuers,
            @Nullable SSLEngine engine) {
        return choose(keyTypes, TlsFailures.endpoint(engine));
    }

    @Override
    public @Nullable String chooseClientAlias(String @Nullable [] keyTypes, Principal @Nullable [] issuers,
            @Nullable Socket socket) {
        return choose(keyTypes, TlsFailures.endpoint(socket));
    }

    @Override
    public String @Nullable [] getClientAliases(String keyType, Principal @Nullable [] issuers) {
        Material m = refresh();
        return m == null ? null : new String[] {m.alias};
    }

    @Override
    public X509Certificate @Nullable [] getCertificateChain(@Nullable String alias) {
        Material m = byAlias(alias);
        return m == null ? null : m.chain.clone();
    }

    @Override
    public @Nullable PrivateKey getPrivateKey(@Nullable String alias) {
        Material m = byAlias(alias);
        return m == null ? null : m.key;
    }

    @Override
    public String @Nullable [] getServerAliases(String keyType, Principal @Nullable [] issuers) {
        return null;
    }

    @Override
    public @Nullable String chooseServerAlias(String keyType, Principal @Nullable [] issuers, @Nullable Socket socket) {
        return null;
    }
}
