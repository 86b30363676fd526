package io.blockxfer.directory.etcd.internal;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Gives every etcd call but the watch stream a deadline. jetcd makes its calls wait for a ready
 * connection ({@code waitForReady}) and sets no deadline of its own, so without one a call to an
 * unreachable cluster would wait for ever; with one it fails with {@code DEADLINE_EXCEEDED} and
 * frees its stream. The watch stream lives as long as the watch and is exempt; the lease keep-alive
 * stream is opened by {@code keepAliveOnce} for one renewal, so the deadline applies to it too,
 * and it does not wait for a connection at all: while none can be made it fails at once.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public final class DeadlineInterceptor implements ClientInterceptor {

    /** The full name of etcd's watch method, the one long-lived call. */
    static final String WATCH_METHOD = "etcdserverpb.Watch/Watch";
    /** The full name of etcd's lease renewal method. */
    static final String KEEP_ALIVE_METHOD = "etcdserverpb.Lease/LeaseKeepAlive";

    private final long timeoutNanos;

    /** Every call but the watch gets {@code timeout} unless it carries an earlier deadline. */
    public DeadlineInterceptor(Duration timeout) {
        this.timeoutNanos = timeout.toNanos();
    }

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        String name = method.getFullMethodName();
        if (WATCH_METHOD.equals(name)) {
            return next.newCall(method, options);
        }
        CallOptions bounded = options.getDeadline() != null ? options
                : options.withDeadlineAfter(timeoutNanos, TimeUnit.NANOSECONDS);
        if (KEEP_ALIVE_METHOD.equals(name)) {
            // a renewal fails at once while no connection can be made, so that it is tried again
            // soon instead of waiting out its deadline
            bounded = bounded.withoutWaitForReady();
        }
        return next.newCall(method, bounded);
    }
}
