package io.blockxfer.directory.etcd.internal;

import io.blockxfer.directory.DirectoryDispatcher;
import io.blockxfer.directory.DirectoryException;
import io.blockxfer.directory.DirectoryLimits;
import io.blockxfer.directory.DirectoryUnavailableException;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import org.jspecify.annotations.Nullable;

/**
 * One published entry (a member's key, and its group key when it names a group: both put by one
 * transaction, {@link #write}, with the same value under the same lease, so that both exist from
 * one revision on and the lease's revoke or expiry deletes both) and the lease that holds it, kept
 * alive by renewals of its own rather than jetcd's {@code keepAlive} stream (which ends silently
 * with {@code onCompleted} and whose first deadline is the gRPC keepalive timeout): every TTL/3 one
 * {@code keepAliveOnce}, a fresh attempt every {@value #RETRY_MILLIS} ms while etcd cannot be
 * reached, at most one attempt at a time, each bounded by the operation timeout and failing at once
 * while no connection can be made.
 *
 * <p>The lease is <b>lost</b>, reported once through the dispatcher and never renewed again, when
 * <ul>
 *   <li>etcd answers that it does not know the lease (it expired, or someone revoked it), or</li>
 *   <li>no renewal succeeded for the TTL plus {@link #LOSS_GRACE} after the last one was sent,
 *       and none is under way (whose answer, due within the operation timeout, then decides):
 *       etcd has deleted the entry by then unless its leader changed meanwhile (a new leader gives
 *       every lease its full TTL again); either way the process can no longer count on being
 *       listed, and publishes anew. A lease kept by a leader change but no longer renewed expires
 *       a TTL later; an entry published again meanwhile belongs to the new lease and stays.</li>
 * </ul>
 * All renewal work runs on the connection's timer thread. {@link #restore()} puts the value again
 * with the lease, on the caller's thread; etcd's answer that the lease is gone makes it lost too.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class LeasedEntry implements Publication {

    private static final System.Logger LOG = System.getLogger(LeasedEntry.class.getName());

    /**
     * How long after its TTL a lease that could not be renewed is given up: etcd's default election
     * timeout, within which a leader change settles and a renewal can tell whether the lease lives.
     */
    public static final Duration LOSS_GRACE = Duration.ofSeconds(1);
    /** The pause before another renewal attempt after one failed. */
    static final long RETRY_MILLIS = 500;

    private final EtcdConnection connection;
    private final DirectoryDispatcher dispatcher;
    private final Consumer<LeasedEntry> onEnd;
    private final String memberId;
    private final String key;
    private final @Nullable String groupKey;
    private final long leaseId;
    private final Duration ttl;
    private final long revision;
    private final ByteSequence value;
    private final PublicationListener listener;

    // guarded by this
    private long confirmedUntil;
    private boolean renewing;
    private @Nullable ScheduledFuture<?> nextRenewal;
    private @Nullable ScheduledFuture<?> expiry;
    private @Nullable Throwable lastError;
    private long lastErrorAt;

    private volatile boolean lost;
    private volatile boolean closed;

    /**
     * An entry put (by {@link #write}) under {@code leaseId}, granted for {@code ttlSeconds} by a
     * request sent at {@code grantSentNanos}.
     *
     * @param onEnd told once when the entry ends (closed, lost or abandoned)
     * @param groupKey the member's group key, put with the same value and lease; null without a group
     * @param value the value put, for {@link #restore()}
     */
    public LeasedEntry(EtcdConnection connection, DirectoryDispatcher dispatcher, Consumer<LeasedEntry> onEnd,
            String memberId, String key, @Nullable String groupKey, long leaseId, long ttlSeconds,
            long grantSentNanos, long revision, ByteSequence value, PublicationListener listener) {
        this.connection = connection;
        this.dispatcher = dispatcher;
        this.onEnd = onEnd;
        this.memberId = memberId;
        this.key = key;
        this.groupKey = groupKey;
        this.leaseId = leaseId;
        this.ttl = Duration.ofSeconds(ttlSeconds);
        this.revision = revision;
        this.value = value;
        this.listener = listener;
        this.confirmedUntil = grantSentNanos + ttl.toNanos();
    }

    /**
     * Publishes: grants a lease of {@code ttl}, makes the value for its id, puts it under
     * {@code key} (and {@code groupKey}, in the same transaction) attached to the lease, and
     * returns the entry, not yet renewing ({@link #start()}); on failure the lease is revoked.
     * Waits for etcd at most the operation timeout in all, on the caller's thread.
     *
     * @throws IllegalArgumentException if the value made is too large
     * @throws NullPointerException if the value made is null
     * @throws io.blockxfer.directory.DirectoryException as {@link EtcdConnection#call} fails
     */
    public static LeasedEntry publish(EtcdConnection connection, DirectoryDispatcher dispatcher,
            Consumer<LeasedEntry> onEnd, String memberId, String key, @Nullable String groupKey,
            LongFunction<byte[]> value, Duration ttl, PublicationListener listener) {
        String what = "publish '" + memberId + "'";
        long deadline = connection.deadline();
        long sent = System.nanoTime();
        LeaseGrantResponse grant = connection.call(() -> connection.lease().grant(ttl.toSeconds()), deadline,
                what + " (grant a lease of " + ttl.toSeconds() + " s)");
        long leaseId = grant.getID();
        try {
            byte[] made = Objects.requireNonNull(value.apply(leaseId), "the value made for lease "
                    + Long.toHexString(leaseId));
            ByteSequence bytes = ByteSequence.from(DirectoryLimits.checkValue(made)); // a copy
            long revision = write(connection, key, groupKey, bytes, leaseId, deadline, what);
            return new LeasedEntry(connection, dispatcher, onEnd, memberId, key, groupKey, leaseId, grant.getTTL(),
                    sent, revision, bytes, listener);
        } catch (RuntimeException e) {
            var unused = connection.revokeQuietly(leaseId, "failed " + what);
            throw e;
        }
    }

    /**
     * Puts {@code value} under {@code key} and, when not null, {@code groupKey}, attached to
     * {@code leaseId}, in one etcd transaction (one revision; all or nothing), waiting for etcd until
     * {@code deadline}; returns the revision of the write.
     *
     * @throws io.blockxfer.directory.DirectoryException as {@link EtcdConnection#call} fails
     */
    public static long write(EtcdConnection connection, String key, @Nullable String groupKey, ByteSequence value,
            long leaseId, long deadline, String what) {
        PutOption option = PutOption.builder().withLeaseId(leaseId).build();
        List<Op> puts = new ArrayList<>(2);
        puts.add(Op.put(ByteSequence.from(key, StandardCharsets.UTF_8), value, option));
        if (groupKey != null) {
            puts.add(Op.put(ByteSequence.from(groupKey, StandardCharsets.UTF_8), value, option));
        }
        TxnResponse written = connection.call(() -> connection.kv().txn().Then(puts.toArray(Op[]::new)).commit(),
                deadline, what);
        return written.getHeader().getRevision();
    }

    /** Starts the renewals: the first a third of the TTL after the grant was sent. */
    public synchronized void start() {
        long sent = confirmedUntil - ttl.toNanos();
        scheduleRenewal(Math.max(0, sent + ttl.toNanos() / 3 - System.nanoTime()));
        scheduleExpiry();
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

    /** The etcd lease id. */
    public long leaseId() {
        return leaseId;
    }

    @Override
    public long lease() {
        return leaseId;
    }

    /**
     * Puts the value again under the key (and the group key, in the same transaction) with this
     * lease, waiting for etcd at most the operation timeout. etcd's answer that it no longer holds
     * the lease makes the publication lost (its listener is told) and throws
     * {@link IllegalStateException}.
     */
    @Override
    public long restore() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        if (lost) {
            throw new IllegalStateException(this + " is lost");
        }
        try {
            return write(connection, key, groupKey, value, leaseId, connection.deadline(), "restore " + keys());
        } catch (DirectoryUnavailableException e) {
            throw e;
        } catch (DirectoryException e) {
            Throwable cause = e.getCause();
            if (cause != null && EtcdErrors.isLeaseNotFound(cause)) {
                lose("etcd " + connection.endpoints() + " no longer holds lease " + Long.toHexString(leaseId) + " of "
                        + key + " (a restore of the entry was refused): it expired or was revoked");
                throw new IllegalStateException(this + ": its lease is lost", e);
            }
            throw e;
        }
    }

    /**
     * Deletes the key (and the group key, in the same transaction) if the key's last write is at
     * {@code revision} (0: it does not exist), waiting for etcd at most the operation timeout.
     */
    @Override
    public boolean deleteIfAt(long revision) {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        if (lost) {
            throw new IllegalStateException(this + " is lost");
        }
        ByteSequence k = ByteSequence.from(key, StandardCharsets.UTF_8);
        List<Op> deletes = new ArrayList<>(2);
        deletes.add(Op.delete(k, DeleteOption.DEFAULT));
        if (groupKey != null) {
            deletes.add(Op.delete(ByteSequence.from(groupKey, StandardCharsets.UTF_8), DeleteOption.DEFAULT));
        }
        Cmp unchanged = new Cmp(k, Cmp.Op.EQUAL, CmpTarget.modRevision(revision));
        TxnResponse answer = connection.call(() -> connection.kv().txn().If(unchanged)
                .Then(deletes.toArray(Op[]::new)).commit(), connection.deadline(), "delete " + keys() + " at revision "
                + revision);
        return answer.isSucceeded();
    }

    /** The key, and the group key if any, for messages. */
    private String keys() {
        return groupKey == null ? key : key + " and " + groupKey;
    }

    /**
     * Revokes the lease (goodbye), waiting for etcd at most the operation timeout; when etcd cannot
     * be reached the lease is left to expire. Idempotent; does nothing after a loss.
     */
    @Override
    public void close() {
        CompletableFuture<Void> revoked = closeAsync();
        try {
            revoked.get(connection.operationTimeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            LOG.log(Level.DEBUG, () -> this + ": etcd did not confirm the revoke; the lease expires by itself");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Stops the renewals and starts the revoke; the future completes when etcd has answered or the
     * call's deadline passed (never exceptionally). Completed at once when already closed or lost.
     */
    public CompletableFuture<Void> closeAsync() {
        if (!end()) {
            return CompletableFuture.completedFuture(null);
        }
        return connection.revokeQuietly(leaseId, "goodbye of " + key);
    }

    /** Stops the renewals without a goodbye, as a killed process would: the lease expires by itself. */
    public void abandon() {
        end();
    }

    /** Marks the publication closed and stops its timers; true for the first of close, abandon and loss. */
    private boolean end() {
        synchronized (this) {
            if (closed || lost) {
                return false;
            }
            closed = true;
            cancelTimers();
        }
        onEnd.accept(this);
        return true;
    }

    private void cancelTimers() {
        if (nextRenewal != null) {
            nextRenewal.cancel(false);
            nextRenewal = null;
        }
        if (expiry != null) {
            expiry.cancel(false);
            expiry = null;
        }
    }

    private void scheduleRenewal(long delayNanos) {
        if (nextRenewal != null) {
            nextRenewal.cancel(false);
        }
        nextRenewal = connection.timer().schedule(this::renew, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void scheduleExpiry() {
        if (expiry != null) {
            expiry.cancel(false);
        }
        long at = confirmedUntil + LOSS_GRACE.toNanos();
        expiry = connection.timer().schedule(this::checkExpiry, Math.max(0, at - System.nanoTime()),
                TimeUnit.NANOSECONDS);
    }

    /** On the timer thread: one renewal attempt, unless one is under way. */
    private void renew() {
        long sent;
        synchronized (this) {
            if (closed || lost || renewing) {
                return;
            }
            renewing = true;
            sent = System.nanoTime();
        }
        try {
            var unused = connection.lease().keepAliveOnce(leaseId)
                    .whenCompleteAsync((r, e) -> renewed(sent, r == null ? 0 : r.getTTL(), e), connection.timer());
        } catch (RuntimeException e) {
            renewed(sent, 0, e); // the client is closing
        }
    }

    /** On the timer thread: the answer to the renewal sent at {@code sent}. */
    private void renewed(long sent, long ttlSeconds, @Nullable Throwable error) {
        String lostReason = null;
        synchronized (this) {
            renewing = false;
            if (closed || lost) {
                return;
            }
            if (error == null && ttlSeconds > 0) {
                connection.reachable();
                confirmedUntil = Math.max(confirmedUntil, sent + TimeUnit.SECONDS.toNanos(ttlSeconds));
                lastError = null;
                scheduleRenewal(Math.max(0, sent + TimeUnit.SECONDS.toNanos(ttlSeconds) / 3 - System.nanoTime()));
                scheduleExpiry();
            } else if (error == null || EtcdErrors.isLeaseNotFound(error)) {
                lostReason = "etcd " + connection.endpoints() + " no longer holds lease " + Long.toHexString(leaseId)
                        + " of " + key + ": it expired (not renewed for its TTL of " + ttl.toSeconds()
                        + " s) or was revoked";
            } else {
                if (lastError == null) {
                    lastErrorAt = sent;
                }
                lastError = error;
                if (EtcdErrors.isUnavailable(error)) {
                    connection.unreachable();
                }
                if (System.nanoTime() - (confirmedUntil + LOSS_GRACE.toNanos()) >= 0) {
                    lostReason = unrenewedReason();
                } else {
                    scheduleRenewal(TimeUnit.MILLISECONDS.toNanos(RETRY_MILLIS));
                }
            }
        }
        if (lostReason != null) {
            lose(lostReason);
        }
    }

    /** Why the lease is given up when no renewal succeeded in time. */
    private String unrenewedReason() {
        Throwable error = lastError;
        return "lease " + Long.toHexString(leaseId) + " of " + key + " was not renewed for its TTL of "
                + ttl.toSeconds() + " s and " + LOSS_GRACE.toMillis() + " ms more: etcd " + connection.endpoints()
                + " could not be reached"
                + (error == null ? "" : " (renewals failing for "
                        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastErrorAt) + " ms; last error: "
                        + EtcdErrors.describe(error) + ")");
    }

    /**
     * On the timer thread: gives the lease up when no renewal came within its TTL and the grace,
     * unless a renewal is under way: etcd is answering then (renewals do not wait for a
     * connection), and its answer, due within the operation timeout, decides.
     */
    private void checkExpiry() {
        String reason;
        synchronized (this) {
            if (closed || lost || renewing) {
                return;
            }
            long overdue = System.nanoTime() - (confirmedUntil + LOSS_GRACE.toNanos());
            if (overdue < 0) {
                scheduleExpiry();
                return;
            }
            reason = unrenewedReason();
        }
        lose(reason);
    }

    private void lose(String reason) {
        synchronized (this) {
            if (closed || lost) {
                return;
            }
            lost = true;
            cancelTimers();
        }
        LOG.log(Level.INFO, () -> "directory entry " + key + ": lease lost: " + reason);
        onEnd.accept(this);
        dispatcher.leaseLost(this, listener, reason);
    }

    @Override
    public String toString() {
        return "Publication[" + keys() + ", lease " + Long.toHexString(leaseId) + ", TTL " + ttl.toSeconds() + " s"
                + (lost ? ", lost" : closed ? ", closed" : "") + "]";
    }
}
