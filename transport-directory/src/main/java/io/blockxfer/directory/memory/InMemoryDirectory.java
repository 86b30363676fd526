package io.blockxfer.directory.memory;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryDispatcher;
import io.blockxfer.directory.DirectoryEntry;
import io.blockxfer.directory.DirectoryLimits;
import io.blockxfer.directory.DirectoryListener;
import io.blockxfer.directory.DirectoryUnavailableException;
import io.blockxfer.directory.DirectoryWatch;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongFunction;

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
    private final List<DirectoryDispatcher.Relay> watches = new CopyOnWriteArrayList<>();
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

    List<DirectoryDispatcher.Relay> watches() {
        return watches;
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
    public Publication publish(String memberId, LongFunction<byte[]> value, Duration ttl,
            PublicationListener listener) {
        DirectoryLimits.checkMemberId(memberId);
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
            long revision = cluster.putLeased(key, copy, lease);
            Pub pub = new Pub(memberId, key, ttl, revision, lease, copy, listener);
            lease.publication = pub;
            publications.add(pub);
            return pub;
        }
    }

    @Override
    public DirectoryWatch watch(DirectoryListener listener) {
        Objects.requireNonNull(listener, "listener");
        synchronized (cluster) {
            ensureOpen();
            ensureReachable("watch " + prefix);
            DirectoryDispatcher.Relay[] self = new DirectoryDispatcher.Relay[1];
            DirectoryDispatcher.Relay relay = dispatcher.relay(listener, () -> watches.remove(self[0]));
            self[0] = relay;
            List<DirectoryEntry> entries = new ArrayList<>();
            long revision = cluster.list(prefix, entries);
            relay.listed(entries, revision);
            watches.add(relay);
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
            for (DirectoryDispatcher.Relay w : watches) {
                w.close();
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
            for (DirectoryDispatcher.Relay w : watches) {
                w.close();
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
        private final Duration ttl;
        private final long revision;
        private final InMemoryCluster.Lease lease;
        private final byte[] value;
        final PublicationListener listener;
        /** Guarded by the cluster's lock; read unlocked by {@link #isLost()}. */
        volatile boolean lost;
        volatile boolean closed;

        Pub(String memberId, String key, Duration ttl, long revision, InMemoryCluster.Lease lease, byte[] value,
                PublicationListener listener) {
            this.memberId = memberId;
            this.key = key;
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
                return cluster.putLeased(key, value, lease);
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
            return "Publication[" + key + ", lease " + lease.id + ", TTL " + ttl.toSeconds() + " s"
                    + (lost ? ", lost" : closed ? ", closed" : "") + "]";
        }
    }
}
