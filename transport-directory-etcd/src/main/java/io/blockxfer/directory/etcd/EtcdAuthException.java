package io.blockxfer.directory.etcd;

import io.blockxfer.directory.DirectoryException;
import org.jspecify.annotations.Nullable;

/**
 * etcd's authentication refused this client, or its user lacks what a directory needs (read and
 * write on the deployment's prefix). {@link EtcdDirectory.Builder#build()} checks both when a user
 * or TLS is configured; a call that etcd refuses so later throws it too. The message names the
 * user, the prefix and what is missing; {@link #reason()} says which case it is. It is not retried.
 *
 * <p><b>Thread safety:</b> immutable after construction.
 */
public class EtcdAuthException extends DirectoryException {
    private static final long serialVersionUID = 1L;

    /** Why etcd refused. */
    public enum Reason {
        /** The user does not exist or the password is wrong. */
        AUTHENTICATION_FAILED,
        /** A user is configured but etcd's authentication is off ({@code etcdctl auth enable} was not run). */
        AUTH_NOT_ENABLED,
        /** The user's roles do not grant read, or write, on the prefix; the message says which is missing. */
        PERMISSION_DENIED,
        /** etcd's authentication is on and this client presents neither a user nor a client certificate. */
        NO_USER
    }

    private final Reason reason;

    /** An exception for {@code reason}. */
    public EtcdAuthException(Reason reason, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    /** Why etcd refused. */
    public Reason reason() {
        return reason;
    }
}
