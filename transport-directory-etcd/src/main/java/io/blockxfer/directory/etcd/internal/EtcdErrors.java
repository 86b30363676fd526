package io.blockxfer.directory.etcd.internal;

import io.blockxfer.directory.etcd.EtcdAuthException;
import io.etcd.jetcd.common.exception.CompactedException;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.grpc.Status;
import java.nio.channels.ClosedChannelException;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Classifies what jetcd reports: whether a failure means "etcd could not be reached" (and may be
 * retried), that a lease or revision is gone, that etcd's authentication refused the client, or
 * something else. TLS failures are {@link TlsFailures}'.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class EtcdErrors {

    private EtcdErrors() {
    }

    /** The failure inside the wrappers of futures ({@link CompletionException}, {@link ExecutionException}). */
    public static Throwable unwrap(Throwable t) {
        Throwable cause = t;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** jetcd's error codes are gRPC's, by name. */
    private static Status.Code grpcCode(ErrorCode code) {
        try {
            return Status.Code.valueOf(code.name());
        } catch (IllegalArgumentException e) {
            return Status.Code.UNKNOWN;
        }
    }

    /** The gRPC status code of a failure; {@code UNKNOWN} when it carries none. */
    public static Status.Code code(Throwable t) {
        Throwable cause = unwrap(t);
        if (cause instanceof EtcdException e) {
            return grpcCode(e.getErrorCode());
        }
        if (cause instanceof TimeoutException) {
            return Status.Code.DEADLINE_EXCEEDED;
        }
        if (cause instanceof CancellationException) {
            return Status.Code.CANCELLED;
        }
        return Status.fromThrowable(cause).getCode();
    }

    /**
     * Whether the failure says etcd could not be reached or could not serve now (no connection,
     * no leader, deadline passed, a connection closed under the call): a caller may retry, and reports it
     * as unavailability.
     */
    public static boolean isUnavailable(Throwable t) {
        Status.Code code = code(t);
        if (code == Status.Code.UNAUTHENTICATED && authFailure(t).isEmpty()
                && firstCause(unwrap(t).getCause(), c -> isUnreachableCode(Status.fromThrowable(c).getCode())) != null) {
            // jetcd reports a failed authentication call as UNAUTHENTICATED with that call's error as the
            // cause: etcd could not be reached to authenticate
            return true;
        }
        // gRPC reports a call begun on a connection closed under it (etcd's or a proxy's end went away a
        // moment before) as UNKNOWN: channel closed, not UNAVAILABLE
        return isUnreachableCode(code) || code == Status.Code.CANCELLED
                || (code == Status.Code.UNKNOWN && firstCause(unwrap(t), c -> c instanceof ClosedChannelException) != null);
    }

    private static boolean isUnreachableCode(Status.Code code) {
        return code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED;
    }

    /** {@code first}, or the first of its causes (at most 16 deep), that matches {@code test}; null when none does. */
    private static @Nullable Throwable firstCause(@Nullable Throwable first, Predicate<Throwable> test) {
        int depth = 0;
        for (Throwable c = first; c != null && depth < 16; c = c.getCause(), depth++) {
            if (test.test(c)) {
                return c;
            }
        }
        return null;
    }

    /**
     * What an authentication or permission refusal of etcd's means (its texts are etcd's
     * {@code rpctypes} errors, anywhere in the cause chain: jetcd wraps a failed authentication);
     * empty when the failure is of another kind.
     */
    public static Optional<EtcdAuthException.Reason> authFailure(Throwable t) {
        Throwable refusal = firstCause(unwrap(t), c -> authReason(c) != null);
        return Optional.ofNullable(refusal == null ? null : authReason(refusal));
    }

    private static EtcdAuthException.@Nullable Reason authReason(Throwable c) {
        String message = String.valueOf(c.getMessage());
        if (message.contains("etcdserver: authentication failed")) {
            return EtcdAuthException.Reason.AUTHENTICATION_FAILED;
        }
        if (message.contains("etcdserver: authentication is not enabled")) {
            return EtcdAuthException.Reason.AUTH_NOT_ENABLED;
        }
        if (message.contains("etcdserver: permission denied")) {
            return EtcdAuthException.Reason.PERMISSION_DENIED;
        }
        if (message.contains("etcdserver: user name is empty")) {
            return EtcdAuthException.Reason.NO_USER;
        }
        return null;
    }

    /** Whether etcd answered that the lease does not exist (expired or revoked). */
    public static boolean isLeaseNotFound(Throwable t) {
        Throwable cause = unwrap(t);
        String message = String.valueOf(cause.getMessage());
        return code(t) == Status.Code.NOT_FOUND || message.contains("requested lease not found");
    }

    /**
     * Whether a watch or a read asked for a revision etcd has compacted away: etcd's own error
     * ({@code OUT_OF_RANGE}), or its text with another code (etcd's gRPC proxy passes etcd's errors
     * on as {@code UNKNOWN}).
     */
    public static boolean isCompacted(Throwable t) {
        Throwable cause = unwrap(t);
        String message = String.valueOf(cause.getMessage());
        return cause instanceof CompactedException
                || (code(t) == Status.Code.OUT_OF_RANGE && message.contains("compacted"))
                || message.contains("required revision has been compacted");
    }

    /** Whether a response was larger than the client accepts. */
    public static boolean isTooLarge(Throwable t) {
        return code(t) == Status.Code.RESOURCE_EXHAUSTED;
    }

    /**
     * etcd's own text of a failure ({@code etcdserver: ...}) wherever it is in the cause chain (jetcd
     * wraps a failed authentication), else {@link #describe}.
     */
    public static String etcdMessage(Throwable t) {
        Throwable etcds = firstCause(unwrap(t), c -> String.valueOf(c.getMessage()).contains("etcdserver: "));
        if (etcds == null) {
            return describe(t);
        }
        String message = String.valueOf(etcds.getMessage());
        return message.substring(message.indexOf("etcdserver: ")).strip();
    }

    /** A one-line description of a failure for messages: its status code and text. */
    public static String describe(Throwable t) {
        Throwable cause = unwrap(t);
        String message = cause.getMessage();
        return code(t) + (message == null || message.isBlank() ? "" : ": " + message.strip());
    }
}
