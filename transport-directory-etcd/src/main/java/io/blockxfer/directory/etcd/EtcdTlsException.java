package io.blockxfer.directory.etcd;

import io.blockxfer.directory.DirectoryException;
import org.jspecify.annotations.Nullable;

/**
 * TLS to etcd failed for a reason that waiting will not cure: a certificate or key file that
 * cannot be used, a certificate that the other side does not accept, or an endpoint that does
 * not speak TLS. {@link EtcdDirectory.Builder#build()} throws it when TLS is misconfigured; a call
 * throws it instead of a {@link io.blockxfer.directory.DirectoryUnavailableException} when the
 * handshakes of the endpoints failed so (it is not retried). The message names the file, where one
 * is involved, and the endpoint; {@link #reason()} says which case it is.
 *
 * <p><b>Thread safety:</b> immutable after construction.
 */
public class EtcdTlsException extends DirectoryException {
    private static final long serialVersionUID = 1L;

    /** Why TLS failed. */
    public enum Reason {
        /** A certificate, key or CA file is missing, unreadable or malformed, or a key is not its certificate's. */
        BAD_FILE,
        /** This client's own certificate has expired (checked when the directory is built, and at each rotation). */
        CLIENT_CERTIFICATE_EXPIRED,
        /** This client's own certificate is not valid yet. */
        CLIENT_CERTIFICATE_NOT_YET_VALID,
        /** etcd asks for a client certificate ({@code --client-cert-auth}) and none is configured. */
        NO_CLIENT_CERTIFICATE,
        /** etcd refused this client's certificate: not issued by a CA in its {@code --trusted-ca-file}, or expired. */
        CLIENT_CERTIFICATE_REJECTED,
        /** etcd's certificate is not issued by a CA in the trusted CA bundle. */
        UNTRUSTED_SERVER_CERTIFICATE,
        /** etcd's certificate (or one of its CAs) has expired. */
        SERVER_CERTIFICATE_EXPIRED,
        /** etcd's certificate (or one of its CAs) is not valid yet. */
        SERVER_CERTIFICATE_NOT_YET_VALID,
        /** etcd's certificate does not cover the host name or IP address dialed (no matching SAN). */
        HOST_MISMATCH,
        /** The endpoint answered in plain text: an {@code https://} endpoint of an etcd without TLS. */
        NOT_TLS,
        /** Another TLS failure; the message carries the handshake's error. */
        HANDSHAKE_FAILED
    }

    private final Reason reason;
    private final @Nullable String endpoint;

    /**
     * An exception for {@code reason}.
     *
     * @param endpoint the endpoint ({@code HOST:PORT}) whose handshake failed; null for a file problem
     *     found before any connection
     */
    public EtcdTlsException(Reason reason, @Nullable String endpoint, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.reason = reason;
        this.endpoint = endpoint;
    }

    /** Why TLS failed. */
    public Reason reason() {
        return reason;
    }

    /** The endpoint ({@code HOST:PORT}) whose handshake failed; null when no connection was involved. */
    public @Nullable String endpoint() {
        return endpoint;
    }
}
