package io.blockxfer.directory.etcd.internal;

import io.blockxfer.directory.DirectoryUnavailableException;
import io.blockxfer.directory.etcd.EtcdTlsException;
import io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.SslContext;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import org.jspecify.annotations.Nullable;

/**
 * TLS to etcd: the files (a trusted CA bundle, a client certificate and key), the key and trust
 * managers that read them again when they change ({@link ReloadingKeyManager},
 * {@link ReloadingTrustManager}), the SSL context handed to jetcd (gRPC's, with ALPN for HTTP/2),
 * and a check of every endpoint's handshake ({@link #check}) before the directory is used.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class EtcdTls {

    /** What the user configured: each file may be null (no client certificate; the JDK's CAs). */
    public record Settings(@Nullable Path caFile, @Nullable Path certFile, @Nullable Path keyFile,
            boolean skipVerification) {
        /** Whether anything asks for TLS. */
        public boolean any() {
            return caFile != null || certFile != null || skipVerification;
        }
    }

    /** How long a check waits, after the handshake, for an alert that refuses the client's certificate. */
    private static final int ALERT_WAIT_MILLIS = 100;

    private final Settings settings;
    private final TlsFailures failures;
    private final ReloadingKeyManager keyManager;
    private final ReloadingTrustManager trustManager;
    private final SslContext sslContext;
    private final SSLContext jdkContext;

    /**
     * Reads the files and checks the client certificate's validity.
     *
     * @throws EtcdTlsException naming the file that cannot be used, or the client certificate
     *     out of its validity
     */
    public EtcdTls(Settings settings) {
        this.settings = settings;
        this.failures = new TlsFailures(settings.caFile(), settings.certFile());
        this.keyManager = new ReloadingKeyManager(settings.certFile(), settings.keyFile(), failures);
        this.trustManager = new ReloadingTrustManager(settings.caFile(), settings.skipVerification(), failures);
        try {
            this.sslContext = GrpcSslContexts.forClient().keyManager(keyManager).trustManager(trustManager).build();
            this.jdkContext = SSLContext.getInstance("TLS");
            jdkContext.init(new KeyManager[] {keyManager}, new TrustManager[] {trustManager}, null);
        } catch (SSLException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot set up TLS: " + e, e);
        }
    }

    /** The settings. */
    public Settings settings() {
        return settings;
    }

    /** Netty's SSL context for jetcd's gRPC channel. */
    public SslContext sslContext() {
        return sslContext;
    }

    /** What the handshakes have failed with. */
    public TlsFailures failures() {
        return failures;
    }

    /** The client certificate's subject's CN (the etcd user it stands for without a password), or null. */
    public @Nullable String clientCommonName() {
        var c = keyManager.certificate();
        if (c == null) {
            return null;
        }
        try {
            for (Rdn rdn : new LdapName(c.getSubjectX500Principal().getName()).getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN")) {
                    return String.valueOf(rdn.getValue());
                }
            }
        } catch (InvalidNameException e) {
            return null;
        }
        return null;
    }

    /**
     * Makes a TLS handshake with every endpoint ({@code HOST:PORT}), as jetcd's channel would, and
     * sends a request ({@code GET /health}) so that a refusal of the client's certificate, which
     * TLS 1.3 reports after the handshake, arrives too; waits at most until {@code deadlineNanos}
     * in all. Endpoints that cannot be reached are left to the calls.
     *
     * @param owner the directory, for messages
     * @throws EtcdTlsException for the first endpoint whose handshake failed, naming it
     * @throws DirectoryUnavailableException when no endpoint could be reached at all
     */
    public void check(List<String> endpoints, long deadlineNanos, String owner) {
        List<String> unreachable = new ArrayList<>();
        for (String endpoint : endpoints) {
            long remaining = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
            if (remaining <= 0) {
                unreachable.add(endpoint + " (no time left)");
                continue;
            }
            String problem;
            try {
                problem = handshake(endpoint, (int) Math.max(1, Math.min(Integer.MAX_VALUE, remaining)));
            } catch (EtcdTlsException e) {
                throw new EtcdTlsException(e.reason(), e.endpoint(), owner + ": " + e.getMessage(), e.getCause());
            }
            if (problem != null) {
                unreachable.add(endpoint + " (" + problem + ")");
            }
        }
        if (unreachable.size() == endpoints.size()) {
            throw new DirectoryUnavailableException(owner + " could not check TLS with etcd: no endpoint could be"
                    + " reached: " + String.join(", ", unreachable));
        }
    }

    /** One handshake; null when it succeeded, what kept it from being made, or throws a TLS failure. */
    private @Nullable String handshake(String endpoint, int timeoutMillis) {
        int colon = endpoint.lastIndexOf(':');
        String host = endpoint.substring(0, colon);
        String bare = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        int port = Integer.parseInt(endpoint.substring(colon + 1));
        long started = System.nanoTime();
        long deadline = started + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        try (Socket raw = new Socket()) {
            try {
                raw.connect(new InetSocketAddress(bare, port), timeoutMillis);
                raw.setSoTimeout(timeoutMillis);
            } catch (IOException e) {
                return e.toString();
            }
            SSLSocket socket;
            try {
                socket = (SSLSocket) jdkContext.getSocketFactory().createSocket(raw, bare, port, true);
                SSLParameters parameters = socket.getSSLParameters();
                parameters.setEndpointIdentificationAlgorithm("HTTPS");
                socket.setSSLParameters(parameters);
                socket.startHandshake();
            } catch (SocketTimeoutException e) {
                return "no TLS handshake within " + timeoutMillis + " ms";
            } catch (IOException e) {
                if (TlsFailures.closedConnection(e) && failures.at(endpoint, started).isEmpty()
                        && failures.closedAfterPresenting(endpoint, e, started).isEmpty()) {
                    // closed before etcd said anything of TLS (a path cut off, a balancer with no etcd behind it)
                    return "the connection closed during the TLS handshake (" + e + ")";
                }
                throw failure(endpoint, started, e, false);
            }
            try {
                // TLS 1.3 refuses a client certificate after the handshake: an alert comes at once, or
                // the answer to a request says the certificate was taken
                InputStream in = socket.getInputStream();
                socket.setSoTimeout(ALERT_WAIT_MILLIS);
                try {
                    int early = in.read();
                    throw failure(endpoint, started, new EOFException(early < 0
                            ? "etcd closed the connection right after the handshake"
                            : "etcd spoke first after the handshake"), true);
                } catch (SocketTimeoutException quiet) {
                    // nothing came: ask
                }
                socket.setSoTimeout((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                OutputStream out = socket.getOutputStream();
                out.write(("GET /health HTTP/1.0\r\nHost: " + host + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                if (in.read() < 0) {
                    throw failure(endpoint, started, new EOFException("etcd closed the connection without answering"
                            + " after the handshake"), true);
                }
            } catch (SocketTimeoutException e) {
                // no refusal came within the time: the handshake stands
            } catch (IOException e) {
                throw failure(endpoint, started, e, true);
            }
            failures.succeeded(endpoint);
            return null;
        } catch (IOException e) {
            return e.toString(); // closing the socket failed
        }
    }

    /**
     * The failure of {@code endpoint}'s handshake: what the key or trust manager recorded since
     * {@code started}, else what {@code e} says; a connection closed right after the handshake
     * means etcd refused the client's certificate.
     */
    private EtcdTlsException failure(String endpoint, long started, IOException e, boolean afterHandshake) {
        EtcdTlsException failure = failures.at(endpoint, started).or(() -> failures.classify(endpoint, e))
                .or(() -> failures.closedAfterPresenting(endpoint, e, started))
                .orElseGet(() -> {
                    Path cert = settings.certFile();
                    if (afterHandshake && cert != null) {
                        return new EtcdTlsException(EtcdTlsException.Reason.CLIENT_CERTIFICATE_REJECTED, endpoint,
                                "etcd at " + endpoint + " closed the connection right after the TLS handshake (" + e
                                        + "): it refused this client's certificate " + cert + ", not signed by a CA in"
                                        + " etcd's --trusted-ca-file, or expired in etcd's eyes", e);
                    }
                    return new EtcdTlsException(EtcdTlsException.Reason.HANDSHAKE_FAILED, endpoint,
                            "the TLS handshake with etcd at " + endpoint + " failed: " + e, e);
                });
        failures.record(endpoint, failure);
        return failure;
    }
}
