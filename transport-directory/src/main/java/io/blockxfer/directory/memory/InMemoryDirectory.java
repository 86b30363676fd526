package io.blockxfer.directory.memory;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryDispatcher;
import io.blockxfer.directory.DirectoryEntry;
import io.blockxfer.directory.DirectoryLimits;
import io.blockxfer.directory.DirectoryListener;
import io.blockxfer.directory.DirectoryScope;
import io.blockxfer.directory.DirectorySnapshot;
import io.blockxfer.directory.DirectoryUnavailableException;
import io.blockxfer.directory.DirectoryWatch;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongFunction;
import org.jspecify.annotations.Nullable;

/**
 * One client of an {@link InMemoryCluster}: a {@link Directory} whose calls never wait, and which
 * the cluster's hooks can cut off or crash.
 *
 * <p><b>Thread safety:</b> thread-safe; state shared with the cluster is guarded by the cluster's
 * lock.
 */
final class InMemoryDirectory implements Directory {

    /** Calls never wait; a nominal limit for callers that plan with it. */
    private static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(1);

    private final InMemoryCluster cluster;
    private final String name;
    private final String prefix;
    private final DirectoryDispatcher dispatcher;
    private final List<ScopedRelay> watches = new CopyOnWriteArrayList<>();
    private final List<Pub> publications = new CopyOnWriteArrayList<>();
    /** Guarded by the cluster's lock. */
    boolean reachable = true;
    private volatile boolean closed;

    InMemoryDirectory(InMemoryCluster cluster, String name, String prefix) {
        this.cluster = cluster;
        this.name = name;
        this.prefix = prefix;
        this.dispatcher = new DirectoryDispatcher(name.replace('/', '-'));
    }

    InMemoryCluster cluster() {
        return cluster;
    }

    List<ScopedRelay> watches() {
        return watches;
    }

    /** A watch of this client: the keys it follows and the relay it feeds. */
    record ScopedRelay(DirectoryScope scope, DirectoryDispatcher.Relay relay) {
    }

    @Override
    public String prefix() {
        return prefix;
    }

    @Override
    public Duration operationTimeout() {
        return OPERATION_TIMEOUT;
    }

    @Override
    public Publication publish(String memberId, @Nullable String group, LongFunction<byte[]> value, Duration ttl,
            PublicationListener listener) {
        DirectoryLimits.checkMemberId(memberId);
        if (group != null) {
            DirectoryLimits.checkGroup(group);
        }
        Objects.requireNonNull(value, "value");
        DirectoryLimits.checkTtl(ttl);
        Objects.requireNonNull(listener, "listener");
        String what = "publish '" + memberId + "'";
        InMemoryCluster.Lease lease;
        synchronized (cluster) {
            ensureOpen();
            ensureReachable(what);
            lease = cluster.grant(this, ttl);
        }
        byte[] copy;
        try {
            byte[] made = Objects.requireNonNull(value.apply(lease.id), "the value made for lease " + lease.id);
            copy = DirectoryLimits.checkValue(made).clone();
        } catch (RuntimeException e) {
            cluster.revoke(lease);
            throw e;
        }
        synchronized (cluster) {
            try {
                ensureOpen();
                ensureReachable(what);
            } catch (RuntimeException e) {
                cluster.revoke(lease);
                throw e;
            }
            String key = prefix + memberId;
            List<String> keys = group == null ? List.of(key) : List.of(key, DirectoryScope.groupKey(prefix, group,
                    memberId));
            long revision = cluster.putLeased(keys, copy, lease);
            Pub pub = new Pub(memberId, keys, ttl, revision, lease, copy, listener);
            lease.publication = pub;
            publications.add(pub);
            return pub;
        }
    }

    @Override
    public DirectoryWatch watch(DirectoryScope scope, DirectoryListener listener) {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(listener, "listener");
        synchronized (cluster) {
            ensureOpen();
            ensureReachable("watch " + scope + " under " + prefix);
            ScopedRelay[] self = new ScopedRelay[1];
            DirectoryDispatcher.Relay relay = dispatcher.relay(listener, () -> watches.remove(self[0]));
            self[0] = new ScopedRelay(scope, relay);
            List<DirectoryEntry> entries = new ArrayList<>();
            long revision = cluster.list(prefix, scope, entries);
            relay.listed(entries, revision);
            watches.add(self[0]);
            return relay;
        }
    }

    @Override
    public CompletableFuture<DirectorySnapshot> read(DirectoryScope scope) {
        Objects.requireNonNull(scope, "scope");
        synchronized (cluster) {
            ensureOpen();
            if (!reachable) {
                return CompletableFuture.failedFuture(new DirectoryUnavailableException(this + " cannot read " + scope
                        + " under " + prefix + ": " + cluster.name() + " is unreachable (cut off by a test hook)"));
            }
            List<DirectoryEntry> entries = new ArrayList<>();
            long revision = cluster.list(prefix, scope, entries);
            return CompletableFuture.completedFuture(new DirectorySnapshot(revision, entries));
        }
    }

    @Override
    public DirectoryWatch watch(DirectoryScope scope, DirectorySnapshot from, DirectoryListener listener) {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(listener, "listener");
        synchronized (cluster) {
            ensureOpen();
            ScopedRelay[] self = new ScopedRelay[1];
            DirectoryDispatcher.Relay relay = dispatcher.relay(listener, () -> watches.remove(self[0]));
            self[0] = new ScopedRelay(scope, relay);
            relay.listed(from.entries(), from.revision());
            watches.add(self[0]);
            cluster.watchFrom(this, self[0]);
            return relay;
        }
    }

    @Override
    public void close() {
        synchronized (cluster) {
            if (closed) {
                return;
            }
            closed = true;
            for (Pub p : publications) {
                p.closeLocked();
            }
            for (ScopedRelay w : watches) {
                w.relay().close();
            }
            cluster.forget(this);
        }
        dispatcher.close();
    }

    /** The cluster crashed this client: no goodbye, no callbacks, closed. */
    void crashed() {
        synchronized (cluster) {
            closed = true;
            for (Pub p : publications) {
                p.closed = true;
            }
            for (ScopedRelay w : watches) {
                w.relay().close();
            }
        }
        dispatcher.close();
    }

    /** The cluster ended the lease of {@code pub} while this client runs: tell its listener. */
    void leaseLost(Pub pub, String reason) {
        pub.lost = true;
        dispatcher.leaseLost(pub, pub.listener, reason);
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        cluster.ensureOpen();
    }

    private void ensureReachable(String what) {
        if (!reachable) {
            throw new DirectoryUnavailableException(this + " cannot " + what + ": " + cluster.name()
                    + " is unreachable (cut off by a test hook)");
        }
    }

    @Override
    public String toString() {
        return "in-memory directory " + name + " " + prefix;
    }

    /** A publication of this client. */
    final class Pub implements Publication {
        private final String memberId;
        private final String key;
        private final List<String> keys; // the member's key, and its group key if any
        private final Duration ttl;
        private final long revision;
        private final InMemoryCluster.Lease lease;
        private final byte[] value;
        final PublicationListener listener;
        /** Guarded by the cluster's lock; read unlocked by {@link #isLost()}. */
        volatile boolean lost;
        volatile boolean closed;

        Pub(String memberId, List<String> keys, Duration ttl, long revision, InMemoryCluster.Lease lease,
                byte[] value, PublicationListener listener) {
            this.memberId = memberId;
            this.key = keys.get(0);
            this.keys = keys;
            this.ttl = ttl;
            this.revision = revision;
            this.lease = lease;
            this.value = value;
            this.listener = listener;
        }

        @Override
        public long lease() {
            return lease.id;
        }

        @Override
        public long restore() {
            synchronized (cluster) {
                if (closed) {
                    throw new IllegalStateException(this + " is closed");
                }
                if (lost || !cluster.holds(lease)) {
                    throw new IllegalStateException(this + ": its lease " + lease.id + " is lost");
                }
                ensureReachable("restore " + key);
                return cluster.putLeased(keys, value, lease);
            }
        }

        @Override
        public boolean deleteIfAt(long at) {
            synchronized (cluster) {
                if (closed) {
                    throw new IllegalStateException(this + " is closed");
                }
                if (lost) {
                    throw new IllegalStateException(this + ": its lease " + lease.id + " is lost");
                }
                ensureReachable("delete " + key);
                return cluster.deleteIfAt(keys, at);
            }
        }

        @Override
        public String memberId() {
            return memberId;
        }

        @Override
        public String key() {
            return key;
        }

        @Override
        public Duration ttl() {
            return ttl;
        }

        @Override
        public long revision() {
            return revision;
        }

        @Override
        public boolean isLost() {
            return lost;
        }

        @Override
        public void close() {
            synchronized (cluster) {
                closeLocked();
            }
        }

        void closeLocked() {
            if (closed) {
                return;
            }
            closed = true;
            publications.remove(this);
            if (lost) {
                return;
            }
            if (reachable) {
                cluster.revoke(lease);
            } else {
                cluster.abandon(lease);
            }
        }

        @Override
        public String toString() {
            return "Publication[" + String.join(" and ", keys) + ", lease " + lease.id + ", TTL " + ttl.toSeconds()
                    + " s" + (lost ? ", lost" : closed ? ", closed" : "") + "]";
        }
    }
}
