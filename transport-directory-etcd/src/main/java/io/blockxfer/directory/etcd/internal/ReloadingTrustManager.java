package io.blockxfer.directory.etcd.internal;

import io.blockxfer.directory.etcd.EtcdTlsException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import org.jspecify.annotations.Nullable;

/**
 * Decides whether etcd's certificate is trusted: by the CA bundle of a PEM file (one or several
 * CAs), read again at a handshake when its bytes changed (a renewed bundle that cannot be read
 * leaves the previous one in use, with a warning); by the JDK's default CAs when no file is given;
 * or not at all when verification is skipped. With a file or the defaults, the JDK's PKIX trust
 * manager checks the chain and, since gRPC asks for HTTPS endpoint identification, that the
 * certificate covers the host name or IP address dialed. Every refusal is recorded in
 * {@link TlsFailures}, with the endpoint.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class ReloadingTrustManager extends X509ExtendedTrustManager {

    private static final System.Logger LOG = System.getLogger(ReloadingTrustManager.class.getName());

    private final @Nullable Path caFile;
    private final boolean skipVerification;
    private final TlsFailures failures;
    // guarded by this
    private X509ExtendedTrustManager delegate;
    private byte[] caText;
    private byte @Nullable [] refusedText;

    /**
     * Trusts the CAs of {@code caFile} (null: the JDK's), or anything when {@code skipVerification}.
     *
     * @throws EtcdTlsException {@code BAD_FILE} naming the file when it cannot be used
     */
    public ReloadingTrustManager(@Nullable Path caFile, boolean skipVerification, TlsFailures failures) {
        this.caFile = caFile;
        this.skipVerification = skipVerification;
        this.failures = failures;
        if (caFile == null) {
            this.caText = new byte[0];
            this.delegate = pkix(null);
        } else {
            this.caText = read(caFile);
            this.delegate = pkix(PemFiles.certificates(caFile, caText, "trusted CA"));
        }
    }

    private static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw PemFiles.bad(file, "trusted CA", "it cannot be read (" + e + ")", e);
        }
    }

    /** The JDK's PKIX trust manager for {@code cas} (null: the JDK's default CAs). */
    private static X509ExtendedTrustManager pkix(@Nullable List<X509Certificate> cas) {
        try {
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            if (cas == null) {
                factory.init((KeyStore) null);
            } else {
                KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
                store.load(null, null);
                for (int i = 0; i < cas.size(); i++) {
                    store.setCertificateEntry("ca-" + i, cas.get(i));
                }
                factory.init(store);
            }
            for (TrustManager tm : factory.getTrustManagers()) {
                if (tm instanceof X509ExtendedTrustManager x) {
                    return x;
                }
            }
            throw new IllegalStateException("the JDK's " + factory.getAlgorithm() + " trust managers include no"
                    + " X509ExtendedTrustManager");
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot set up the JDK's trust manager: " + e, e);
        }
    }

    /** The trust manager of the CA file as it is now. */
    private synchronized X509ExtendedTrustManager current() {
        Path file = caFile;
        if (file == null) {
            return delegate;
        }
        byte[] text;
        try {
            text = Files.readAllBytes(file);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "cannot read the trusted CA file " + file + " (" + e
                    + "); the CAs read before stay in use");
            return delegate;
        }
        if (Arrays.equals(text, caText) || Arrays.equals(text, refusedText)) {
            return delegate;
        }
        try {
            List<X509Certificate> cas = PemFiles.certificates(file, text, "trusted CA");
            delegate = pkix(cas);
            caText = text;
            LOG.log(Level.INFO, () -> "trusted CA file " + file + " renewed: " + cas.size() + " CA(s)");
        } catch (EtcdTlsException e) {
            refusedText = text;
            LOG.log(Level.WARNING, "the renewed trusted CA file cannot be used, the CAs read before stay in use: "
                    + e.getMessage());
        }
        return delegate;
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, @Nullable SSLEngine engine)
            throws CertificateException {
        String endpoint = TlsFailures.endpoint(engine);
        if (skipVerification) {
            return;
        }
        try {
            current().checkServerTrusted(chain, authType, engine);
        } catch (CertificateException e) {
            failures.serverRefused(endpoint, chain, e);
            throw e;
        }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, @Nullable Socket socket)
            throws CertificateException {
        if (skipVerification) {
            return;
        }
        try {
            current().checkServerTrusted(chain, authType, socket);
        } catch (CertificateException e) {
            failures.serverRefused(TlsFailures.endpoint(socket), chain, e);
            throw e;
        }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        if (!skipVerification) {
            current().checkServerTrusted(chain, authType);
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, @Nullable Socket socket)
            throws CertificateException {
        throw new CertificateException("an etcd client trusts no clients");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, @Nullable SSLEngine engine)
            throws CertificateException {
        throw new CertificateException("an etcd client trusts no clients");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("an etcd client trusts no clients");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return skipVerification ? new X509Certificate[0] : current().getAcceptedIssuers();
    }
}
