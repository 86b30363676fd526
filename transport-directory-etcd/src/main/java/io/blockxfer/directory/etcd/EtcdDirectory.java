package io.blockxfer.directory.etcd;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryDispatcher;
import io.blockxfer.directory.DirectoryLimits;
import io.blockxfer.directory.DirectoryListener;
import io.blockxfer.directory.DirectoryWatch;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import io.blockxfer.directory.etcd.internal.EtcdConnection;
import io.blockxfer.directory.etcd.internal.LeasedEntry;
import io.blockxfer.directory.etcd.internal.PrefixWatch;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.kv.PutResponse;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@link Directory} on etcd (3.4 or newer), through jetcd: a member's entry is a key
 * {@code prefix + memberId} put under an etcd lease of its TTL, which this client renews every
 * TTL/3; a watch lists the prefix and follows it with an etcd watch that resumes, or resyncs,
 * across reconnects. See the module README for running a deployment on etcd.
 *
 * <pre>{@code
 * try (EtcdDirectory directory = EtcdDirectory.builder("etcd://198.18.0.1:2379,198.18.0.2:2379,198.18.0.3:2379")
 *         .prefix("/blockxfer/prod-eu/").build()) {
 *     Publication me = directory.publish("worker-17", entryBytes, Duration.ofSeconds(15), (p, why) -> ...);
 *     DirectoryWatch members = directory.watch(listener);
 * }
 * }</pre>
 *
 * <p>What it adds to the {@link Directory} contract:
 * <ul>
 *   <li><b>Connection.</b> The client connects on its first call, to any of the endpoints
 *       (round-robin), and fails over between them. Every call but the watch stream carries a
 *       deadline of {@link #operationTimeout()}; gRPC keepalive pings (after 10 s without
 *       traffic while a call such as the watch is open; the connection is closed when one is not
 *       answered within 5 s) notice a connection whose peer vanished without closing it.</li>
 *   <li><b>Leases.</b> A lease is renewed every TTL/3 (again every 500 ms while that fails); it is
 *       lost when etcd answers that it no longer holds it, or when no renewal succeeded for the TTL
 *       and one second more. etcd may grant a longer TTL than asked (its minimum is 1.5 election
 *       timeouts); {@link Publication#ttl()} is the TTL granted.</li>
 *   <li><b>Listings</b> are read in pages at one revision, so a deployment of many members lists
 *       within the client's response limit.</li>
 *   <li><b>Threads.</b> jetcd calls back on a Vert.x event loop; nothing of ours runs or blocks
 *       there: events go to the dispatcher's thread ({@code blockxfer-directory-<name>}), lease
 *       renewals and reconnects to a timer thread ({@code blockxfer-etcd-<name>}).</li>
 * </ul>
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class EtcdDirectory implements Directory {

    /** The operation timeout unless set: 5 s. */
    public static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofSeconds(5);
    /** The prefix unless set. */
    public static final String DEFAULT_PREFIX = "/blockxfer/default/";
    /** The shortest operation timeout accepted. */
    public static final Duration MIN_OPERATION_TIMEOUT = Duration.ofMillis(100);
    /** The longest operation timeout accepted. */
    public static final Duration MAX_OPERATION_TIMEOUT = Duration.ofMinutes(5);

    private static final AtomicInteger COUNT = new AtomicInteger();

    private final String name;
    private final String prefix;
    private final EtcdConnection connection;
    private final DirectoryDispatcher dispatcher;
    private final Set<LeasedEntry> publications = ConcurrentHashMap.newKeySet();
    private final Set<PrefixWatch> watches = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private EtcdDirectory(Builder b) {
        this.name = b.name != null ? b.name : "etcd-" + COUNT.incrementAndGet();
        this.prefix = b.prefix;
        this.connection = new EtcdConnection(b.endpoints, b.operationTimeout, name, describe(name, b.endpoints, prefix));
        this.dispatcher = new DirectoryDispatcher(name);
    }

    /**
     * A builder for a client of the etcd cluster at {@code endpoints}
     * ({@code etcd://HOST:PORT[,HOST:PORT...]} or {@code http://HOST:PORT[,http://HOST:PORT...]}).
     *
     * @throws IllegalArgumentException naming the endpoints if they are malformed
     */
    public static Builder builder(String endpoints) {
        return new Builder(EtcdEndpoints.parse(endpoints));
    }

    /** A builder for a client of the etcd cluster at {@code endpoints}. */
    public static Builder builder(EtcdEndpoints endpoints) {
        return new Builder(Objects.requireNonNull(endpoints, "endpoints"));
    }

    /** The client's name, as in its threads' names ({@code blockxfer-directory-<name>}). */
    public String name() {
        return name;
    }

    /** The endpoints this client connects to. */
    public EtcdEndpoints endpoints() {
        return connection.endpoints();
    }

    @Override
    public String prefix() {
        return prefix;
    }

    @Override
    public Duration operationTimeout() {
        return connection.operationTimeout();
    }

    @Override
    public Publication publish(String memberId, byte[] value, Duration ttl, PublicationListener listener) {
        DirectoryLimits.checkMemberId(memberId);
        DirectoryLimits.checkValue(value);
        DirectoryLimits.checkTtl(ttl);
        Objects.requireNonNull(listener, "listener");
        ensureOpen();
        ByteSequence bytes = ByteSequence.from(value); // a copy
        String key = prefix + memberId;
        String what = "publish '" + memberId + "'";
        long deadline = connection.deadline();
        long sent = System.nanoTime();
        LeaseGrantResponse grant = connection.call(() -> connection.lease().grant(ttl.toSeconds()), deadline,
                what + " (grant a lease of " + ttl.toSeconds() + " s)");
        long leaseId = grant.getID();
        LeasedEntry entry;
        try {
            PutOption option = PutOption.builder().withLeaseId(leaseId).build();
            PutResponse put = connection.call(() -> connection.kv().put(ByteSequence.from(key, StandardCharsets.UTF_8),
                    bytes, option), deadline, what);
            entry = new LeasedEntry(connection, dispatcher, publications::remove, memberId, key, leaseId,
                    grant.getTTL(), sent, put.getHeader().getRevision(), listener);
            publications.add(entry);
        } catch (RuntimeException e) {
            var unused = connection.revokeQuietly(leaseId, "failed " + what);
            throw e;
        }
        if (closed) {
            // closed while publishing: close() may have missed it
            var unused = entry.closeAsync();
            throw closedException();
        }
        entry.start();
        return entry;
    }

    @Override
    public DirectoryWatch watch(DirectoryListener listener) {
        Objects.requireNonNull(listener, "listener");
        ensureOpen();
        PrefixWatch watch = new PrefixWatch(connection, prefix, dispatcher, listener, watches::remove);
        watches.add(watch);
        watch.start(connection.deadline());
        if (closed) {
            watch.close();
            throw closedException();
        }
        return watch;
    }

    /**
     * Revokes every lease of this client (waiting for etcd at most the operation timeout in all),
     * stops every watch and releases the connection and the threads. Idempotent; never throws.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        List<CompletableFuture<Void>> revokes = new ArrayList<>();
        for (LeasedEntry entry : List.copyOf(publications)) {
            revokes.add(entry.closeAsync());
        }
        try {
            CompletableFuture.allOf(revokes.toArray(CompletableFuture[]::new))
                    .get(connection.operationTimeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // unreachable: the leases expire by themselves
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (PrefixWatch watch : List.copyOf(watches)) {
            watch.close();
        }
        connection.close();
        dispatcher.close();
    }

    /**
     * Stops this client as a killed process would, for fault tests: no goodbye (its leases are
     * left to expire), no more callbacks, closed.
     */
    void abandon() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        dispatcher.close();
        for (PrefixWatch watch : List.copyOf(watches)) {
            watch.abandon();
        }
        for (LeasedEntry entry : List.copyOf(publications)) {
            entry.abandon();
        }
        connection.close();
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return closed;
    }

    private void ensureOpen() {
        if (closed) {
            throw closedException();
        }
    }

    private IllegalStateException closedException() {
        return new IllegalStateException(this + " is closed");
    }

    /** "etcd directory NAME etcd://HOST:PORT,... /PREFIX/": names the endpoints and the prefix. */
    @Override
    public String toString() {
        return describe(name, connection.endpoints(), prefix);
    }

    private static String describe(String name, EtcdEndpoints endpoints, String prefix) {
        return "etcd directory " + name + " " + endpoints + " " + prefix;
    }

    /**
     * Builds an {@link EtcdDirectory}. Nothing is contacted until the first call.
     *
     * <p><b>Thread safety:</b> not thread-safe; build on one thread.
     */
    public static final class Builder {
        private final EtcdEndpoints endpoints;
        private String prefix = DEFAULT_PREFIX;
        private Duration operationTimeout = DEFAULT_OPERATION_TIMEOUT;
        private @org.jspecify.annotations.Nullable String name;

        private Builder(EtcdEndpoints endpoints) {
            this.endpoints = endpoints;
        }

        /**
         * The deployment's prefix (see {@link DirectoryLimits}); {@value EtcdDirectory#DEFAULT_PREFIX}
         * unless set.
         *
         * @throws IllegalArgumentException naming the prefix if it is malformed
         */
        public Builder prefix(String prefix) {
            this.prefix = DirectoryLimits.checkPrefix(prefix);
            return this;
        }

        /**
         * How long a call waits for etcd before it fails with a
         * {@link io.blockxfer.directory.DirectoryUnavailableException}; 5 s unless set.
         *
         * @throws IllegalArgumentException if it is outside 100 ms to 5 min
         */
        public Builder operationTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.compareTo(MIN_OPERATION_TIMEOUT) < 0 || timeout.compareTo(MAX_OPERATION_TIMEOUT) > 0) {
                throw new IllegalArgumentException("operation timeout " + timeout + " must be from "
                        + MIN_OPERATION_TIMEOUT.toMillis() + " ms to " + MAX_OPERATION_TIMEOUT.toMinutes() + " min");
            }
            this.operationTimeout = timeout;
            return this;
        }

        /**
         * A name for threads and messages ({@code blockxfer-directory-<name>}); {@code etcd-<n>}
         * unless set.
         *
         * @throws IllegalArgumentException if it is blank or longer than 64 chars
         */
        public Builder name(String name) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank() || name.length() > 64) {
                throw new IllegalArgumentException("name must be 1-64 chars, not blank: '" + name + "'");
            }
            this.name = name;
            return this;
        }

        /** The client; it connects on its first call. */
        public EtcdDirectory build() {
            return new EtcdDirectory(this);
        }
    }
}
