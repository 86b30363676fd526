package io.blockxfer.directory.memory;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryEntry;
import io.blockxfer.directory.DirectoryLimits;
import io.blockxfer.directory.DirectoryScope;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A directory service in this JVM, for tests and loopback CI with no server: the in-memory
 * counterpart of one etcd cluster. Its {@linkplain #connect clients} share one store with etcd's
 * semantics (a global revision that grows with every change, keys attached to leases, a grouped
 * member's two keys written and deleted at one revision as by one transaction, range watches,
 * history that watches resume from until it is compacted), so that several members in one JVM find each other
 * exactly as processes do through etcd, and the {@link Directory} conformance suite runs against
 * it.
 *
 * <p><b>Time.</b> {@link #create()} runs leases on real time (checked every
 * {@value #TICK_MILLIS} ms); {@link #withManualClock()} moves time only when {@link #advance} is
 * called, so that tests of lease expiry need no sleeps. A lease is kept alive while its holder can
 * reach the cluster; it expires its TTL after the holder last reached it (a cut-off or crashed
 * client), and then its keys are deleted and its holder, if still running, is told.
 *
 * <p><b>Fault hooks</b> for tests: {@link #cutOff} and {@link #reconnect} (one client loses the
 * cluster and comes back; its watches resume from history or, after {@link #compact}, resync),
 * {@link #crash} (a client stops without a goodbye), {@link #loseLease} (a live lease revoked),
 * {@link #put} and {@link #delete} (raw writes, without a lease and without limits but etcd's
 * 1.5 MiB request size).
 *
 * <p><b>Thread safety:</b> thread-safe. Clients deliver their callbacks on threads of their own.
 */
public final class InMemoryCluster implements AutoCloseable {

    /** How often a real-time cluster checks its leases, in milliseconds. */
    public static final int TICK_MILLIS = 50;
    /** The largest raw value accepted, as etcd's default request limit: 1.5 MiB. */
    public static final int MAX_RAW_VALUE_BYTES = 1536 * 1024;

    private static final System.Logger LOG = System.getLogger(InMemoryCluster.class.getName());
    private static int clusters;

    private final String name;
    private final boolean manual;
    private final @Nullable ScheduledExecutorService ticker;

    // guarded by this
    private final TreeMap<String, Stored> store = new TreeMap<>();
    private final List<Change> history = new ArrayList<>();
    private final Map<Long, Lease> leases = new HashMap<>();
    private final Set<InMemoryDirectory> clients = new LinkedHashSet<>();
    private long revision;
    private long compacted;
    private long manualNanos;
    private long nextLease = 1;
    private int nextClient = 1;
    private boolean closed;

    /** A value in the store: its bytes, its last write and the lease it belongs to (0: none). */
    private static final class Stored {
        final byte[] value;
        final long revision;
        final long lease;

        Stored(byte[] value, long revision, long lease) {
            this.value = value;
            this.revision = revision;
            this.lease = lease;
        }
    }

    /** One change of history: a put (value non-null, attached to lease, 0: none) or a delete. */
    private static final class Change {
        final long revision;
        final String key;
        final byte @Nullable [] value;
        final long lease;

        Change(long revision, String key, byte @Nullable [] value, long lease) {
            this.revision = revision;
            this.key = key;
            this.value = value;
            this.lease = lease;
        }
    }

    /** A granted lease. */
    static final class Lease {
        final long id;
        final long ttlNanos;
        final InMemoryDirectory holder;
        final Set<String> keys = new LinkedHashSet<>();
        long expiresAt;
        boolean kept = true;
        InMemoryDirectory.@Nullable Pub publication;

        Lease(long id, long ttlNanos, InMemoryDirectory holder, long now) {
            this.id = id;
            this.ttlNanos = ttlNanos;
            this.holder = holder;
            this.expiresAt = now + ttlNanos;
        }
    }

    private InMemoryCluster(boolean manual) {
        synchronized (InMemoryCluster.class) {
            this.name = "in-memory-" + ++clusters;
        }
        this.manual = manual;
        if (manual) {
            this.ticker = null;
        } else {
            ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "blockxfer-directory-" + name + "-leases");
                t.setDaemon(true);
                return t;
            });
            var unused = s.scheduleWithFixedDelay(this::tickSafely, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
            this.ticker = s;
        }
    }

    /** A cluster whose leases run on real time. */
    public static InMemoryCluster create() {
        return new InMemoryCluster(false);
    }

    /** A cluster whose time moves only with {@link #advance}. */
    public static InMemoryCluster withManualClock() {
        return new InMemoryCluster(true);
    }

    /**
     * A new client of this cluster for the deployment under {@code prefix}, as another process
     * would connect. Close it to leave (its publications say goodbye).
     *
     * @throws IllegalArgumentException if the prefix is malformed
     * @throws IllegalStateException if the cluster is closed
     */
    public Directory connect(String prefix) {
        DirectoryLimits.checkPrefix(prefix);
        synchronized (this) {
            ensureOpen();
            InMemoryDirectory client = new InMemoryDirectory(this, name + "/client-" + nextClient++, prefix);
            clients.add(client);
            return client;
        }
    }

    /**
     * Moves a manual clock forward by {@code duration}: leases whose holders cannot reach the
     * cluster and whose TTL runs out meanwhile expire, the others are renewed.
     *
     * @throws IllegalStateException if the cluster runs on real time, or is closed
     * @throws IllegalArgumentException if the duration is negative
     */
    public void advance(Duration duration) {
        Objects.requireNonNull(duration, "duration");
        if (duration.isNegative()) {
            throw new IllegalArgumentException("time does not go back: " + duration);
        }
        if (!manual) {
            throw new IllegalStateException(name + " runs on real time; only a cluster made withManualClock()"
                    + " advances");
        }
        synchronized (this) {
            ensureOpen();
            manualNanos += duration.toNanos();
            tick();
        }
    }

    /** The cluster's revision: the number of changes so far. */
    public synchronized long revision() {
        return revision;
    }

    /**
     * The lease {@code key} is attached to, as a listing or an event reports it: a publication's
     * lease id (positive), or 0 for a key written by {@link #put} or absent.
     */
    public synchronized long leaseOf(String key) {
        Stored s = store.get(Objects.requireNonNull(key, "key"));
        return s == null ? 0 : s.lease;
    }

    /** The value stored under {@code key}, if any (a copy). */
    public synchronized Optional<byte[]> get(String key) {
        Stored s = store.get(Objects.requireNonNull(key, "key"));
        return s == null ? Optional.empty() : Optional.of(s.value.clone());
    }

    /**
     * Writes {@code value} under {@code key} without a lease, as another tool would (the key leaves
     * any lease it belonged to, and is reported with lease 0). Test hook for bad entries: the
     * bytes are stored as they are.
     *
     * @throws IllegalArgumentException if the value exceeds {@link #MAX_RAW_VALUE_BYTES} (etcd's
     *     "request is too large")
     */
    public void put(String key, byte[] value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        if (value.length > MAX_RAW_VALUE_BYTES) {
            throw new IllegalArgumentException("request is too large: " + value.length + " bytes, the limit is "
                    + MAX_RAW_VALUE_BYTES);
        }
        synchronized (this) {
            ensureOpen();
            write(List.of(key), value.clone(), 0);
        }
    }

    /** Deletes {@code key}; returns whether it existed. */
    public boolean delete(String key) {
        Objects.requireNonNull(key, "key");
        synchronized (this) {
            ensureOpen();
            return remove(List.of(key));
        }
    }

    /** Forgets the history up to the current revision: watches that were behind must resync. */
    public synchronized void compact() {
        ensureOpen();
        compacted = revision;
        history.clear();
    }

    /** The revision up to which history is compacted. */
    public synchronized long compactedRevision() {
        return compacted;
    }

    /**
     * Cuts {@code client} off: its calls fail with {@code DirectoryUnavailableException}, its
     * watches are disconnected, and its leases are no longer renewed (they expire a TTL from now).
     *
     * @throws IllegalArgumentException if the client is not one of this cluster's
     */
    public void cutOff(Directory client) {
        InMemoryDirectory c = ours(client);
        synchronized (this) {
            ensureOpen();
            if (!c.reachable) {
                return;
            }
            renew(c);
            c.reachable = false;
            c.watches().forEach(w -> w.relay().disconnected("cut off from " + name + " by a test hook"));
        }
    }

    /**
     * Ends the outage of {@code client}: its watches resume from the revision after the last one
     * they received, or, where {@link #compact} removed that history, list the keys again.
     */
    public void reconnect(Directory client) {
        InMemoryDirectory c = ours(client);
        synchronized (this) {
            ensureOpen();
            if (c.reachable) {
                return;
            }
            c.reachable = true;
            renew(c);
            for (var w : c.watches()) {
                catchUp(c, w);
            }
        }
    }

    /**
     * Stops {@code client} as a killed process would: no goodbye, no more callbacks, its leases no
     * longer renewed (they expire a TTL from now); the client is closed.
     */
    public void crash(Directory client) {
        InMemoryDirectory c = ours(client);
        synchronized (this) {
            if (c.reachable) {
                renew(c);
            }
            c.reachable = false;
            clients.remove(c);
        }
        c.crashed();
    }

    /**
     * Revokes the lease that holds {@code key} now, as if it expired while its holder was paused:
     * its keys are deleted and its holder is told that the lease was lost.
     *
     * @return whether a lease held the key
     */
    public boolean loseLease(String key) {
        Objects.requireNonNull(key, "key");
        synchronized (this) {
            ensureOpen();
            Stored s = store.get(key);
            Lease lease = s == null ? null : leases.get(s.lease);
            if (lease == null) {
                return false;
            }
            end(lease, "lease " + lease.id + " revoked by " + name);
            return true;
        }
    }

    /** Closes every client (with their goodbyes) and stops the cluster's thread. Idempotent. */
    @Override
    public void close() {
        List<InMemoryDirectory> open;
        synchronized (this) {
            if (closed) {
                return;
            }
            open = List.copyOf(clients);
        }
        open.forEach(InMemoryDirectory::close);
        synchronized (this) {
            closed = true;
        }
        if (ticker != null) {
            ticker.shutdownNow();
        }
    }

    @Override
    public String toString() {
        return "InMemoryCluster[" + name + (manual ? ", manual clock" : "") + "]";
    }

    // ------------------------------------------------------------------ for the clients

    String name() {
        return name;
    }

    synchronized long now() {
        return manual ? manualNanos : System.nanoTime();
    }

    synchronized void ensureOpen() {
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
    }

    /** Grants a lease of {@code ttl} to {@code holder}; its ids count from 1, as etcd's are positive. */
    synchronized Lease grant(InMemoryDirectory holder, Duration ttl) {
        ensureOpen();
        Lease lease = new Lease(nextLease++, ttl.toNanos(), holder, now());
        leases.put(lease.id, lease);
        return lease;
    }

    /** Whether {@code lease} still lives (neither revoked nor expired). */
    synchronized boolean holds(Lease lease) {
        return leases.get(lease.id) == lease;
    }

    /**
     * Writes {@code value} under each of {@code keys} (a member's key, and its group key), attached
     * to the live {@code lease}, in one write: all at one revision, as an etcd transaction; returns
     * it.
     */
    synchronized long putLeased(List<String> keys, byte[] value, Lease lease) {
        ensureOpen();
        if (!holds(lease)) {
            throw new IllegalStateException("lease " + lease.id + " no longer exists");
        }
        write(keys, value, lease.id);
        return revision;
    }

    /**
     * Deletes {@code keys} (a member's key, and its group key) at one revision if the first one's
     * last write is at {@code revision} (0: it does not exist); returns whether it did.
     */
    synchronized boolean deleteIfAt(List<String> keys, long revision) {
        ensureOpen();
        Stored first = store.get(keys.get(0));
        long at = first == null ? 0 : first.revision;
        if (at != revision) {
            return false;
        }
        remove(keys);
        return true;
    }

    /**
     * A new watch of {@code scoped} for {@code client}, from a snapshot read before: the changes
     * after {@code from} follow from history, or, where it was compacted, a new listing.
     */
    synchronized void watchFrom(InMemoryDirectory client, InMemoryDirectory.ScopedRelay scoped) {
        if (client.reachable) {
            catchUp(client, scoped);
        } else {
            scoped.relay().disconnected("cut off from " + name + " by a test hook");
        }
    }

    /** The goodbye: revokes {@code lease}, deleting its keys; nobody is told. */
    synchronized void revoke(Lease lease) {
        lease.kept = false;
        if (leases.containsKey(lease.id)) {
            end(lease, null);
        }
    }

    /** Stops renewing {@code lease} (its holder could not say goodbye): it expires on its own. */
    synchronized void abandon(Lease lease) {
        lease.kept = false;
    }

    /** The entries of {@code scope} under {@code prefix} and the revision they are at. */
    synchronized long list(String prefix, DirectoryScope scope, List<DirectoryEntry> into) {
        for (Map.Entry<String, Stored> e : store.subMap(scope.start(prefix), true, scope.end(prefix), false)
                .entrySet()) {
            into.add(new DirectoryEntry(e.getKey(), e.getValue().value, e.getValue().revision, e.getValue().lease));
        }
        return revision;
    }

    /** A client closed or crashed: it is no longer one of the cluster's. */
    synchronized void forget(InMemoryDirectory client) {
        clients.remove(client);
    }

    // ------------------------------------------------------------------ under the lock

    /** Puts {@code value} under each of {@code keys}, in this order, at one new revision (one transaction). */
    private void write(List<String> keys, byte[] value, long leaseId) {
        revision++;
        for (String key : keys) {
            Stored old = store.get(key);
            if (old != null && old.lease != 0) {
                Lease previous = leases.get(old.lease);
                if (previous != null) {
                    previous.keys.remove(key);
                }
            }
            store.put(key, new Stored(value, revision, leaseId));
            if (leaseId != 0) {
                Objects.requireNonNull(leases.get(leaseId), "lease").keys.add(key);
            }
            history.add(new Change(revision, key, value, leaseId));
            for (InMemoryDirectory c : clients) {
                if (c.reachable) {
                    for (var w : c.watches()) {
                        if (w.scope().contains(c.prefix(), key)) {
                            w.relay().put(key, value, revision, leaseId);
                        }
                    }
                }
            }
        }
    }

    /**
     * Deletes those of {@code keys} that exist, in this order, at one new revision (one
     * transaction); returns whether any existed.
     */
    private boolean remove(Collection<String> keys) {
        List<String> present = keys.stream().filter(store::containsKey).toList();
        if (present.isEmpty()) {
            return false;
        }
        revision++;
        for (String key : present) {
            Stored old = Objects.requireNonNull(store.remove(key), "stored");
            if (old.lease != 0) {
                Lease lease = leases.get(old.lease);
                if (lease != null) {
                    lease.keys.remove(key);
                }
            }
            history.add(new Change(revision, key, null, 0));
            for (InMemoryDirectory c : clients) {
                if (c.reachable) {
                    for (var w : c.watches()) {
                        if (w.scope().contains(c.prefix(), key)) {
                            w.relay().deleted(key, revision);
                        }
                    }
                }
            }
        }
        return true;
    }

    /**
     * Ends a lease: deletes its keys, at one revision, in key order (as etcd revokes a lease); tells
     * its holder when {@code lostReason} is given and it still runs.
     */
    private void end(Lease lease, @Nullable String lostReason) {
        leases.remove(lease.id);
        remove(new TreeSet<>(lease.keys));
        InMemoryDirectory.Pub pub = lease.publication;
        if (lostReason != null && pub != null && lease.kept) {
            lease.kept = false;
            lease.holder.leaseLost(pub, lostReason);
        }
    }

    private void renew(InMemoryDirectory client) {
        long now = now();
        for (Lease lease : leases.values()) {
            if (lease.holder == client && lease.kept) {
                lease.expiresAt = now + lease.ttlNanos;
            }
        }
    }

    private void tick() {
        long now = now();
        for (Lease lease : List.copyOf(leases.values())) {
            boolean renewed = lease.kept && lease.holder.reachable && clients.contains(lease.holder);
            if (renewed) {
                lease.expiresAt = now + lease.ttlNanos;
            } else if (now - lease.expiresAt >= 0) {
                end(lease, "lease " + lease.id + " expired: not renewed for its TTL of "
                        + Duration.ofNanos(lease.ttlNanos).toSeconds() + " s");
            }
        }
    }

    private void tickSafely() {
        try {
            synchronized (this) {
                if (!closed) {
                    tick();
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, name + ": lease check failed", e);
        }
    }

    /** Brings a watch of a reconnected client up to date: resumes from history, or lists again. */
    private void catchUp(InMemoryDirectory client, InMemoryDirectory.ScopedRelay scoped) {
        var watch = scoped.relay();
        long from = watch.resumeRevision();
        if (from > compacted) {
            watch.resumed();
            for (Change c : history) {
                if (c.revision >= from && scoped.scope().contains(client.prefix(), c.key)) {
                    byte[] v = c.value;
                    if (v != null) {
                        watch.put(c.key, v, c.revision, c.lease);
                    } else {
                        watch.deleted(c.key, c.revision);
                    }
                }
            }
        } else {
            List<DirectoryEntry> entries = new ArrayList<>();
            long at = list(client.prefix(), scoped.scope(), entries);
            watch.listed(entries, at);
        }
    }

    private InMemoryDirectory ours(Directory client) {
        Objects.requireNonNull(client, "client");
        if (!(client instanceof InMemoryDirectory c) || c.cluster() != this) {
            throw new IllegalArgumentException(client + " is not a client of " + name);
        }
        return c;
    }
}
