package io.blockxfer.directory.etcd.internal;

import io.blockxfer.directory.etcd.EtcdTlsException;
import io.blockxfer.directory.etcd.EtcdTlsException.Reason;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertPathValidatorException.BasicReason;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;

/**
 * What went wrong in TLS with etcd, as typed {@link EtcdTlsException}s: classifies a handshake's
 * error (its cause chain: {@link CertificateExpiredException}, {@link CertPathValidatorException},
 * a host name check, an alert from etcd, a plain-text answer) and remembers, per endpoint, the
 * last failure that this client's trust and key managers saw, so that a call that found no
 * connection can say why instead of "unreachable". Messages name the endpoint and the file.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class TlsFailures {

    /** Alerts by which a server refuses the certificate a client presented (or the lack of one). */
    private static final List<String> REFUSAL_ALERTS = List.of("bad_certificate", "unknown_ca", "certificate_unknown",
            "certificate_expired", "unsupported_certificate", "certificate_revoked", "access_denied",
            "certificate_required", "handshake_failure");

    private final @Nullable Path caFile;
    private final @Nullable Path certFile;
    private final Map<String, Recorded> byEndpoint = new ConcurrentHashMap<>();
    /** When this client last presented its certificate to each endpoint ({@link System#nanoTime()}). */
    private final Map<String, Long> presented = new ConcurrentHashMap<>();

    private record Recorded(long atNanos, EtcdTlsException failure) {
    }

    /**
     * Failures of a client trusting {@code caFile} (null: the JDK's CAs) and presenting
     * {@code certFile} (null: no client certificate), for messages.
     */
    public TlsFailures(@Nullable Path caFile, @Nullable Path certFile) {
        this.caFile = caFile;
        this.certFile = certFile;
    }

    /** {@code HOST:PORT} of an engine's peer, as dialed; "etcd" when it has none. */
    static String endpoint(@Nullable SSLEngine engine) {
        if (engine == null || engine.getPeerHost() == null) {
            return "etcd";
        }
        return endpoint(engine.getPeerHost(), engine.getPeerPort());
    }

    /** {@code HOST:PORT} of a socket's peer; "etcd" when it has none. */
    static String endpoint(@Nullable Socket socket) {
        return socket != null && socket.getRemoteSocketAddress() instanceof InetSocketAddress a
                ? endpoint(a.getHostString(), a.getPort()) : "etcd";
    }

    /** {@code HOST:PORT}, an IPv6 address in brackets, as {@code EtcdEndpoints} writes it. */
    static String endpoint(String host, int port) {
        return (host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host) + ":" + port;
    }

    /** The failure recorded for {@code endpoint} at or after {@code sinceNanos}, if any. */
    Optional<EtcdTlsException> at(String endpoint, long sinceNanos) {
        Recorded r = byEndpoint.get(endpoint);
        return r == null || r.atNanos - sinceNanos < 0 ? Optional.empty() : Optional.of(r.failure);
    }

    /** The trust manager refused {@code endpoint}'s {@code chain}. */
    void serverRefused(String endpoint, X509Certificate @Nullable [] chain, CertificateException e) {
        EtcdTlsException failure = classify(endpoint, e, chain)
                .orElseGet(() -> tls(Reason.UNTRUSTED_SERVER_CERTIFICATE, endpoint, untrusted(endpoint, chain, e), e));
        record(endpoint, failure);
    }

    /** etcd at {@code endpoint} asked for a client certificate and none is configured. */
    void noClientCertificate(String endpoint) {
        record(endpoint, noClientCertificateFailure(endpoint, null));
    }

    /** This client presented its certificate to {@code endpoint} in a handshake, now. */
    void presented(String endpoint) {
        presented.put(endpoint, System.nanoTime());
    }

    /**
     * The failure a connection that {@code endpoint} (null: any) closed after this client presented
     * its certificate to it, at or after {@code sinceNanos}, means: etcd refused the certificate
     * (TLS 1.3 checks it after the client's part of the handshake, and its alert may not reach a
     * client that is still writing: it sees a broken pipe or a reset instead). Empty when
     * {@code error} is no closed connection, or no certificate was presented since.
     */
    public Optional<EtcdTlsException> closedAfterPresenting(@Nullable String endpoint, Throwable error,
            long sinceNanos) {
        Path cert = certFile;
        if (cert == null || !closedConnection(error)) {
            return Optional.empty();
        }
        String at = endpoint;
        if (at == null) {
            at = presented.entrySet().stream().filter(e -> e.getValue() - sinceNanos >= 0).map(Map.Entry::getKey)
                    .findFirst().orElse(null);
        } else {
            Long when = presented.get(at);
            if (when == null || when - sinceNanos < 0) {
                at = null;
            }
        }
        if (at == null) {
            return Optional.empty();
        }
        return Optional.of(tls(Reason.CLIENT_CERTIFICATE_REJECTED, at, "etcd at " + at + " closed the connection"
                + " after this client presented its certificate " + cert + " (" + closedText(error) + "): it refused"
                + " it, not signed by a CA in etcd's --trusted-ca-file, or expired in etcd's eyes", error));
    }

    /** Whether {@code error}'s cause chain is a connection closed by the other side: a broken pipe, a reset, an EOF. */
    static boolean closedConnection(Throwable error) {
        for (Throwable t : chain(error)) {
            String message = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
            if (t instanceof java.io.EOFException || message.contains("broken pipe")
                    || message.contains("connection reset") || message.contains("closed by the remote host")
                    || message.contains("remote host terminated the handshake")) {
                return true;
            }
        }
        return false;
    }

    private static String closedText(Throwable error) {
        for (Throwable t : chain(error)) {
            String message = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
            if (message.contains("broken pipe") || message.contains("connection reset")
                    || t instanceof java.io.EOFException || message.contains("remote host")) {
                return t.toString();
            }
        }
        return error.toString();
    }

    /** Remembers {@code failure} as {@code endpoint}'s last. */
    void record(String endpoint, EtcdTlsException failure) {
        byEndpoint.put(endpoint, new Recorded(System.nanoTime(), failure));
    }

    /** A handshake with {@code endpoint} succeeded: its earlier failure is forgotten. */
    void succeeded(String endpoint) {
        byEndpoint.remove(endpoint);
    }

    /** The newest failure recorded at or after {@code sinceNanos}, if any. */
    public Optional<EtcdTlsException> since(long sinceNanos) {
        Recorded newest = null;
        for (Recorded r : byEndpoint.values()) {
            if (r.atNanos - sinceNanos >= 0 && (newest == null || r.atNanos - newest.atNanos > 0)) {
                newest = r;
            }
        }
        return newest == null ? Optional.empty() : Optional.of(newest.failure);
    }

    /**
     * A failure when every one of {@code endpoints} ({@code HOST:PORT}) failed its handshake at or
     * after {@code sinceNanos}: no connection can be had.
     */
    public Optional<EtcdTlsException> everywhereSince(Collection<String> endpoints, long sinceNanos) {
        EtcdTlsException last = null;
        for (String endpoint : endpoints) {
            Recorded r = byEndpoint.get(endpoint);
            if (r == null || r.atNanos - sinceNanos < 0) {
                return Optional.empty();
            }
            last = r.failure;
        }
        return Optional.ofNullable(last);
    }

    /**
     * The typed failure that {@code error} (a handshake's error, or a call's failure whose cause
     * chain holds one) means, with {@code endpoint} ({@code HOST:PORT}, or null when unknown); empty
     * when it is no TLS failure.
     */
    public Optional<EtcdTlsException> classify(@Nullable String endpoint, Throwable error) {
        return classify(endpoint, error, null);
    }

    private Optional<EtcdTlsException> classify(@Nullable String endpoint, Throwable error,
            X509Certificate @Nullable [] chain) {
        List<Throwable> causes = chain(error);
        String at = endpoint == null ? "etcd" : "etcd at " + endpoint;
        String subject = chain == null || chain.length == 0 ? "" : " (" + describe(chain[0]) + ")";
        for (Throwable t : causes) {
            if (t instanceof EtcdTlsException e) {
                return Optional.of(e);
            }
        }
        for (Throwable t : causes) {
            Reason expiry = t instanceof CertificateExpiredException ? Reason.SERVER_CERTIFICATE_EXPIRED
                    : t instanceof CertificateNotYetValidException ? Reason.SERVER_CERTIFICATE_NOT_YET_VALID
                    : t instanceof CertPathValidatorException v && v.getReason() == BasicReason.EXPIRED
                            ? Reason.SERVER_CERTIFICATE_EXPIRED
                    : t instanceof CertPathValidatorException v && v.getReason() == BasicReason.NOT_YET_VALID
                            ? Reason.SERVER_CERTIFICATE_NOT_YET_VALID
                    : null;
            if (expiry != null) {
                String when = expiry == Reason.SERVER_CERTIFICATE_EXPIRED ? "has expired" : "is not valid yet";
                return Optional.of(tls(expiry, endpoint, "the certificate of " + at + subject
                        + " (or of a CA in its chain) " + when + " (" + t.getMessage() + "); renew it on etcd's side, or check this host's clock",
                        error));
            }
        }
        for (Throwable t : causes) {
            String message = String.valueOf(t.getMessage());
            if (t instanceof CertificateException && !(t instanceof CertificateParsingException)
                    && (message.startsWith("No subject alternative") || message.startsWith("No name matching"))) {
                return Optional.of(tls(Reason.HOST_MISMATCH, endpoint, "the certificate of " + at + subject
                        + " does not cover the host name or address dialed (" + message + "); dialing an IP address"
                        + " needs an IP SAN, a name a DNS SAN", error));
            }
        }
        for (Throwable t : causes) {
            if (t instanceof CertPathBuilderException || t instanceof CertPathValidatorException) {
                return Optional.of(tls(Reason.UNTRUSTED_SERVER_CERTIFICATE, endpoint, untrusted(endpoint, chain, t),
                        error));
            }
        }
        for (Throwable t : causes) {
            String message = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
            if (t instanceof SSLException && message.contains("received fatal alert")) {
                String alert = REFUSAL_ALERTS.stream().filter(message::contains).findFirst().orElse(null);
                if (alert != null) {
                    if (certFile == null) {
                        return Optional.of(noClientCertificateFailure(endpoint == null ? "etcd" : endpoint, error));
                    }
                    return Optional.of(tls(Reason.CLIENT_CERTIFICATE_REJECTED, endpoint, at + " refused this client's"
                            + " certificate " + certFile + " (TLS alert " + alert + "): it is not signed by a CA in"
                            + " etcd's --trusted-ca-file, or etcd finds it expired", error));
                }
            }
            if (t.getClass().getName().equals("io.netty.handler.ssl.NotSslRecordException")
                    || message.contains("plaintext connection") || message.contains("unrecognized ssl message")
                    || message.contains("unsupported or unrecognized ssl message")) {
                return Optional.of(tls(Reason.NOT_TLS, endpoint, at + " does not speak TLS (it answered in plain text):"
                        + " use http:// or etcd:// endpoints for it, or start etcd with --cert-file and --key-file",
                        error));
            }
        }
        for (Throwable t : causes) {
            if (t instanceof SSLException || t instanceof CertificateException) {
                return Optional.of(tls(Reason.HANDSHAKE_FAILED, endpoint, "the TLS handshake with " + at + " failed: "
                        + t, error));
            }
        }
        return Optional.empty();
    }

    private EtcdTlsException noClientCertificateFailure(String endpoint, @Nullable Throwable cause) {
        return tls(Reason.NO_CLIENT_CERTIFICATE, endpoint, "etcd at " + endpoint + " asks for a client certificate"
                + " (--client-cert-auth) and none is configured: give the directory a certificate and its key"
                + " (clientCertificate(cert, key); etcdctl's --cert and --key, ETCDCTL_CERT and ETCDCTL_KEY)", cause);
    }

    private String untrusted(@Nullable String endpoint, X509Certificate @Nullable [] chain, Throwable t) {
        String at = endpoint == null ? "etcd" : "etcd at " + endpoint;
        String subject = chain == null || chain.length == 0 ? "" : " (" + describe(chain[0]) + ")";
        return "the certificate of " + at + subject + " is not signed by a CA in "
                + (caFile == null ? "the JDK's default CAs (no CA file given)" : "the trusted CA file " + caFile)
                + " (" + t.getMessage() + ")";
    }

    /** "subject CN=etcd, issuer CN=etcd-ca": a certificate, for messages. */
    static String describe(X509Certificate c) {
        return "subject " + c.getSubjectX500Principal().getName() + ", issuer " + c.getIssuerX500Principal().getName();
    }

    private static EtcdTlsException tls(Reason reason, @Nullable String endpoint, String message,
            @Nullable Throwable cause) {
        return new EtcdTlsException(reason, endpoint, message, cause);
    }

    /** {@code t} and its causes and suppressed exceptions, each once. */
    private static List<Throwable> chain(Throwable t) {
        List<Throwable> out = new ArrayList<>();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        List<Throwable> todo = new ArrayList<>(List.of(t));
        while (!todo.isEmpty() && out.size() < 64) {
            Throwable next = todo.removeFirst();
            if (!seen.add(next)) {
                continue;
            }
            out.add(next);
            if (next.getCause() != null) {
                todo.add(next.getCause());
            }
            todo.addAll(List.of(next.getSuppressed()));
        }
        return out;
    }
}
