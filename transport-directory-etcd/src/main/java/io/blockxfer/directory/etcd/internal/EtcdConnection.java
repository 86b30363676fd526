package io.blockxfer.directory.etcd.internal;

import io.blockxfer.directory.DirectoryException;
import io.blockxfer.directory.DirectoryUnavailableException;
import io.blockxfer.directory.etcd.EtcdEndpoints;
import io.blockxfer.directory.etcd.EtcdAuthException;
import io.blockxfer.directory.etcd.EtcdTlsException;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Lease;
import io.grpc.ManagedChannel;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One jetcd client, its one watch stream ({@link WatchStream}, on etcd's generated stubs over the
 * client's channel: {@link EtcdStubs}) and the thread that takes over from jetcd's: what the
 * directory's parts share, and what directories of one process may share ({@link #retain()}).
 * jetcd completes its futures and calls its listeners on a Vert.x event loop, where nothing may
 * block; everything that follows a jetcd call runs on this connection's {@linkplain #timer() timer
 * thread} instead (which itself never blocks: it only starts calls and schedules), and listener
 * callbacks on the directory's dispatcher. The jetcd client is built with a deadline on every call
 * but the watch ({@link DeadlineInterceptor}), gRPC keepalive pings while calls are open, and a
 * response limit large enough for etcd's largest values; while etcd cannot be reached, its channel
 * tries to connect every {@link #RECONNECT_INTERVAL} ({@link #unreachable()}), unless TLS
 * handshakes fail (then gRPC's growing backoff applies). With TLS ({@link EtcdTls}) and a user,
 * failures of either are typed ({@link EtcdTlsException}, {@link EtcdAuthException}) and not
 * retried.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class EtcdConnection implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(EtcdConnection.class.getName());

    /**
     * The largest response accepted: 64 MiB instead of gRPC's 4 MiB. A listing page holds at most
     * {@link RangeLister#PAGE_SIZE} entries and etcd's requests (so its values) at most 1.5 MiB,
     * and a watch response catching up after a reconnect may carry many events.
     */
    public static final int MAX_INBOUND_BYTES = 64 * 1024 * 1024;
    /**
     * gRPC keepalive: a ping after this long without reads while a call (the watch) is open. gRPC
     * raises anything shorter to 10 s; etcd refuses pings more often than every 5 s.
     */
    public static final Duration KEEPALIVE_TIME = Duration.ofSeconds(10);
    /** gRPC keepalive: a connection whose ping got no answer in this time is closed. */
    public static final Duration KEEPALIVE_TIMEOUT = Duration.ofSeconds(5);
    /** The pause between two attempts of a call that failed because etcd could not serve it. */
    private static final long RETRY_PAUSE_MILLIS = 200;

    /** With TLS, how often a call waiting for a connection looks whether every handshake failed. */
    private static final long TLS_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /** How often a channel that lost etcd tries to connect again (instead of gRPC's backoff of up to 2 min). */
    public static final Duration RECONNECT_INTERVAL = Duration.ofMillis(500);

    private final EtcdEndpoints endpoints;
    private final @Nullable EtcdTls tls;
    private final @Nullable String user;
    private final String owner;
    private final Duration operationTimeout;
    private final Client client;
    private final EtcdStubs stubs;
    private final WatchStream watchStream;
    private final ManagedChannel channel;
    private int users = 1; // guarded by this
    private final ScheduledThreadPoolExecutor timer;
    private @Nullable ScheduledFuture<?> reconnecting; // guarded by this

    /**
     * A client of {@code endpoints}; it connects on its first call.
     *
     * @param name names the timer thread, {@code blockxfer-etcd-<name>}
     * @param owner what uses this connection, for messages (the directory's {@code toString()})
     * @param tls TLS to etcd, or null for plain text
     * @param user etcd's user to authenticate as, or null; with {@code password}
     */
    public EtcdConnection(EtcdEndpoints endpoints, Duration operationTimeout, String name, String owner,
            @Nullable EtcdTls tls, @Nullable String user, byte @Nullable [] password) {
        this.endpoints = endpoints;
        this.tls = tls;
        this.user = user;
        this.owner = owner;
        this.operationTimeout = operationTimeout;
        ClientBuilder builder = Client.builder()
                .endpoints(endpoints.uris())
                .interceptor(new DeadlineInterceptor(operationTimeout))
                .maxInboundMessageSize(MAX_INBOUND_BYTES)
                .keepaliveTime(KEEPALIVE_TIME)
                .keepaliveTimeout(KEEPALIVE_TIMEOUT)
                // etcd's servers refuse pings without an open call (GOAWAY "too_many_pings")
                .keepaliveWithoutCalls(false)
                .connectTimeout(operationTimeout)
                .retryMaxDuration(operationTimeout);
        if (tls != null) {
            builder.sslContext(tls.sslContext());
        }
        if (user != null && password != null) {
            builder.user(ByteSequence.from(user, StandardCharsets.UTF_8)).password(ByteSequence.from(password));
        }
        this.client = builder.build();
        // the clients' first use builds the gRPC channel, loading gRPC, Netty and Vert.x (over a
        // thousand classes, seconds on a loaded machine): done here, it does not count against the
        // operation timeout of the first call
        var unusedKv = client.getKVClient();
        var unusedLease = client.getLeaseClient();
        this.stubs = EtcdStubs.of(client, user != null);
        this.channel = stubs.channel();
        this.watchStream = new WatchStream(stubs, owner);
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "blockxfer-etcd-" + name);
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
    }

    /**
     * One more user of this connection (another directory of the process, on another prefix): it
     * closes when the last user closes it.
     *
     * @throws IllegalStateException if it is closed already
     */
    public synchronized void retain() {
        if (users == 0) {
            throw new IllegalStateException("the etcd connection to " + endpoints + " is closed");
        }
        users++;
    }

    /**
     * Something failed because etcd could not be reached: until {@link #reachable()}, the channel
     * tries to connect every {@link #RECONNECT_INTERVAL} rather than after gRPC's exponential
     * backoff (1 s growing to 2 min), so that clients are back within a second of etcd.
     */
    public synchronized void unreachable() {
        if (reconnecting != null || timer.isShutdown()) {
            return;
        }
        ManagedChannel c = channel;
        EtcdTls t = tls;
        try {
            reconnecting = timer.scheduleWithFixedDelay(() -> {
                // a handshake that fails fails again: gRPC's growing backoff, not one every 500 ms
                if (t == null || t.failures().since(System.nanoTime() - 2 * RECONNECT_INTERVAL.toNanos()).isEmpty()) {
                    c.resetConnectBackoff();
                }
            }, 0, RECONNECT_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closing
        }
    }

    /** etcd answered: the channel's reconnects follow gRPC's backoff again. */
    public synchronized void reachable() {
        if (reconnecting != null) {
            reconnecting.cancel(false);
            reconnecting = null;
        }
    }

    /** What uses this connection, for messages: "etcd directory NAME ENDPOINTS PREFIX". */
    public String owner() {
        return owner;
    }

    /** The endpoints, for messages. */
    public EtcdEndpoints endpoints() {
        return endpoints;
    }

    /** How long a call may wait for etcd. */
    public Duration operationTimeout() {
        return operationTimeout;
    }

    /** jetcd's key-value client. */
    public KV kv() {
        return client.getKVClient();
    }

    /** jetcd's lease client. */
    public Lease lease() {
        return client.getLeaseClient();
    }

    /** The connection's one watch stream, which every watch of its directories shares. */
    public WatchStream watchStream() {
        return watchStream;
    }

    /** etcd's generated stubs on this connection's channel. */
    public EtcdStubs stubs() {
        return stubs;
    }

    /** The thread that runs what follows jetcd's calls; its tasks never block. */
    public ScheduledExecutorService timer() {
        return timer;
    }

    /** The deadline, in {@link System#nanoTime()}, of an operation that starts now. */
    public long deadline() {
        return System.nanoTime() + operationTimeout.toNanos();
    }

    /**
     * Runs {@code call} until it succeeds, fails with something other than unavailability, or
     * {@code deadline} passes, and returns its result. For the caller's thread only (it waits).
     *
     * @param what what is being done, for the message: {@code "publish 'm1'"}
     * @throws DirectoryUnavailableException naming the endpoints when etcd did not answer in time
     * @throws EtcdTlsException when the TLS handshakes failed (at once when every endpoint's did)
     * @throws EtcdAuthException when etcd refused the user or its permissions
     * @throws DirectoryException when etcd refused the call otherwise
     */
    public <T> T call(Supplier<CompletableFuture<T>> call, long deadline, String what) {
        long started = System.nanoTime();
        @Nullable Throwable last = null;
        while (true) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                throw unavailableOrTls(what, last, started);
            }
            CompletableFuture<T> future = call.get();
            try {
                T result = await(future, deadline, started, what);
                reachable();
                return result;
            } catch (TimeoutException e) {
                unreachable();
                throw unavailableOrTls(what, last == null ? e : last, started);
            } catch (ExecutionException e) {
                Throwable cause = EtcdErrors.unwrap(e);
                Optional<EtcdTlsException> tlsFailure = tlsFailure(cause, started);
                if (tlsFailure.isPresent()) {
                    throw withOwner(tlsFailure.get(), what);
                }
                if (!EtcdErrors.isUnavailable(cause)) {
                    throw refused(what, cause);
                }
                unreachable();
                last = cause;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new DirectoryUnavailableException(owner + ": interrupted while waiting for etcd to " + what, e);
            }
            long pause = Math.min(TimeUnit.MILLISECONDS.toNanos(RETRY_PAUSE_MILLIS), deadline - System.nanoTime());
            if (pause > 0) {
                try {
                    TimeUnit.NANOSECONDS.sleep(pause);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new DirectoryUnavailableException(owner + ": interrupted while waiting for etcd to "
                            + what, e);
                }
            }
        }
    }

    /**
     * What a failed asynchronous call of {@code what} means, as {@link #call} would throw it: a
     * TLS or auth failure, a refusal, or unavailability (which also starts the fast reconnects).
     */
    public DirectoryException failure(String what, Throwable error) {
        Throwable cause = EtcdErrors.unwrap(error);
        if (cause instanceof DirectoryException d) {
            return d;
        }
        Optional<EtcdTlsException> tlsFailure = tlsFailure(cause, System.nanoTime() - operationTimeout.toNanos());
        if (tlsFailure.isPresent()) {
            return withOwner(tlsFailure.get(), what);
        }
        if (!EtcdErrors.isUnavailable(cause)) {
            return refused(what, cause);
        }
        unreachable();
        return unavailable(what, cause);
    }

    /**
     * {@code error} for a watch's disconnect reason: with TLS, the TLS failure it means (or one a
     * handshake recorded within the operation timeout) in its words, else etcd's error.
     */
    public String describeFailure(Throwable error) {
        Optional<EtcdTlsException> t = tlsFailure(EtcdErrors.unwrap(error), System.nanoTime()
                - operationTimeout.toNanos());
        if (t.isEmpty() && tls != null && EtcdErrors.isUnavailable(error)) {
            t = tls.failures().since(System.nanoTime() - operationTimeout.toNanos());
        }
        return t.map(e -> "TLS " + e.reason() + ": " + e.getMessage()).orElseGet(() -> EtcdErrors.describe(error));
    }

    /**
     * The result of {@code future} by {@code deadline}; with TLS, it gives up as soon as the
     * handshake with every endpoint has failed since {@code started} (jetcd's calls wait for a
     * connection, which a refused certificate never gives).
     */
    private <T> T await(CompletableFuture<T> future, long deadline, long started, String what)
            throws ExecutionException, TimeoutException, InterruptedException {
        EtcdTls t = tls;
        if (t == null) {
            return future.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        }
        boolean checked = false;
        long halfway = started + (deadline - started) / 2;
        while (true) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                throw new TimeoutException();
            }
            try {
                return future.get(Math.min(remaining, TLS_POLL_NANOS), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                Optional<EtcdTlsException> everywhere = t.failures().everywhereSince(endpoints.hostPorts(), started);
                if (everywhere.isPresent()) {
                    future.cancel(true);
                    throw withOwner(everywhere.get(), what);
                }
                if (!checked && System.nanoTime() - halfway >= 0) {
                    // still no answer halfway: a handshake of our own says whether TLS is what keeps the channel
                    // from connecting (etcd refusing a client certificate renewed since build() shows only there)
                    checked = true;
                    try {
                        t.check(endpoints.hostPorts(), deadline, owner);
                    } catch (EtcdTlsException refused) {
                        future.cancel(true);
                        throw withOwner(refused, what);
                    } catch (DirectoryUnavailableException unreachableNow) {
                        // not TLS: etcd cannot be reached; wait on
                    }
                }
            }
        }
    }

    /** The TLS failure that {@code cause} means, or that a handshake since {@code started} recorded. */
    private Optional<EtcdTlsException> tlsFailure(Throwable cause, long started) {
        EtcdTls t = tls;
        if (t == null) {
            return Optional.empty();
        }
        Optional<EtcdTlsException> classified = t.failures().classify(null, cause)
                .or(() -> t.failures().closedAfterPresenting(null, cause, started));
        Optional<EtcdTlsException> recorded = t.failures().since(started);
        // the recorded one names its endpoint and certificate
        return classified.isPresent() && recorded.isPresent() ? recorded : classified;
    }

    /** A timeout, or a TLS failure when the handshakes since {@code started} failed. */
    private DirectoryException unavailableOrTls(String what, @Nullable Throwable cause, long started) {
        EtcdTls t = tls;
        if (t != null) {
            Optional<EtcdTlsException> failure = cause == null ? Optional.empty() : tlsFailure(cause, started);
            failure = failure.or(() -> t.failures().since(started));
            if (failure.isPresent()) {
                return withOwner(failure.get(), what);
            }
        }
        return unavailable(what, cause);
    }

    private EtcdTlsException withOwner(EtcdTlsException e, String what) {
        String message = String.valueOf(e.getMessage());
        if (message.startsWith(owner + ": ")) {
            message = message.substring(owner.length() + 2);
        }
        return new EtcdTlsException(e.reason(), e.endpoint(), owner + " could not " + what + ": " + message, e);
    }

    /** etcd refused a call: an {@link EtcdAuthException} when it is about the user or its roles. */
    private DirectoryException refused(String what, Throwable cause) {
        Optional<EtcdAuthException.Reason> auth = EtcdErrors.authFailure(cause);
        if (auth.isPresent()) {
            return new EtcdAuthException(auth.get(), owner + " could not " + what + ": etcd refused "
                    + userDescription() + ": " + authText(auth.get()) + authHint(auth.get()) + " ["
                    + EtcdErrors.etcdMessage(cause) + "]", cause);
        }
        return new DirectoryException(owner + " could not " + what + ": etcd refused: " + EtcdErrors.describe(cause),
                cause);
    }

    /** What an auth refusal means, for messages. */
    static String authText(EtcdAuthException.Reason reason) {
        return switch (reason) {
            case AUTHENTICATION_FAILED -> "authentication failed: a wrong password, or no such user";
            case AUTH_NOT_ENABLED -> "authentication is not enabled in etcd";
            case PERMISSION_DENIED -> "permission denied";
            case NO_USER -> "etcd's authentication is on and no user is given";
        };
    }

    /** What to do about an auth refusal, for messages. */
    static String authHint(EtcdAuthException.Reason reason) {
        return switch (reason) {
            case AUTHENTICATION_FAILED -> " (check the user and its password: etcdctl's --user, ETCDCTL_USER and"
                    + " ETCDCTL_PASSWORD)";
            case AUTH_NOT_ENABLED -> " (etcd's authentication is off, so a user means nothing to it: enable it with"
                    + " etcdctl auth enable, or configure no user)";
            case PERMISSION_DENIED -> " (the user's roles must grant readwrite on the directory's prefix: etcdctl role"
                    + " grant-permission ROLE --prefix=true readwrite PREFIX)";
            case NO_USER -> " (etcd's authentication is on: configure a user and password, or a client certificate"
                    + " whose CN names a user)";
        };
    }

    /** "user 'alice'", "the client certificate's user 'CN'" or "a client without a user", for messages. */
    public String userDescription() {
        if (user != null) {
            return "user '" + user + "'";
        }
        EtcdTls t = tls;
        String cn = t == null ? null : t.clientCommonName();
        return cn != null ? "the user '" + cn + "' of the client certificate's CN (no user configured)"
                : "a client without a user";
    }

    /**
     * "etcd directory NAME etcd://HOST:PORT,... /PREFIX/ could not WHAT within the operation timeout
     * of N ms: etcd is unreachable (last error: ...)".
     */
    public DirectoryUnavailableException unavailable(String what, @Nullable Throwable cause) {
        return new DirectoryUnavailableException(owner + " could not " + what + " within the operation timeout of "
                + operationTimeout.toMillis() + " ms: etcd is unreachable"
                + (cause == null ? "" : " (last error: " + EtcdErrors.describe(cause) + ")"), cause);
    }

    /**
     * Revokes {@code leaseId} without waiting; a failure is logged. Its future completes when etcd
     * answers or the call's deadline passes, never exceptionally.
     */
    public CompletableFuture<Void> revokeQuietly(long leaseId, String what) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            // completes a future only (and logs at DEBUG, off by default): fine on jetcd's event loop
            var unused = lease().revoke(leaseId).whenComplete((r, e) -> {
                if (e != null && !EtcdErrors.isLeaseNotFound(e)) {
                    LOG.log(Level.DEBUG, () -> "etcd " + endpoints + ": could not revoke lease "
                            + Long.toHexString(leaseId) + " (" + what + "); it expires by itself: "
                            + EtcdErrors.describe(e));
                }
                done.complete(null);
            });
        } catch (RuntimeException e) {
            // the client is closed: the lease expires by itself
            done.complete(null);
        }
        return done;
    }

    /**
     * One user is done with the connection; the last one closes the jetcd client and the watch
     * stream and stops the timer thread (waiting up to a second for a task under way, unless called
     * on the timer thread). Idempotent per user.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (users == 0 || --users > 0) {
                return;
            }
        }
        watchStream.close();
        reachable();
        timer.shutdownNow();
        client.close();
        try {
            if (!timer.awaitTermination(1, TimeUnit.SECONDS)) {
                LOG.log(Level.DEBUG, "etcd " + endpoints + ": the timer thread still runs a second after close");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
