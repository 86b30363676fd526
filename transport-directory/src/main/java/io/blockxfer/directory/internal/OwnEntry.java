package io.blockxfer.directory.internal;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryEntry;
import io.blockxfer.directory.DirectoryScope;
import io.blockxfer.directory.DirectorySnapshot;
import io.blockxfer.directory.DirectoryUnavailableException;
import io.blockxfer.directory.MemberEntry;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import io.blockxfer.directory.Refusal;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * This process's own entry: publishes it (with an epoch above any seen under its member id, made
 * for the lease the directory grants), restores it under its lease when someone else overwrote or
 * deleted it (at most {@link #MAX_RESTORES_PER_SECOND} a second; nothing else changes), and
 * publishes it again with a new epoch when its lease is lost, retrying with back-off (and at once
 * when the watch reconnects); the publication after a loss has {@link Registrations} re-register the
 * members held. When another process publishes a valid entry of a newer epoch under the same member
 * id, this one stops publishing its own for good (superseded): it revokes its lease, and neither
 * restores nor publishes again, so that readers find only the newer process under that id. An
 * entry of one of this process's own failed publications (its write landed, its answer was lost)
 * is this process's, not a newer one's.
 *
 * <p><b>Thread safety:</b> confined to the membership's loop, but {@link #epoch()},
 * {@link #publication()} and {@link #keyForeign()} may be read from any thread.
 */
final class OwnEntry {

    private static final System.Logger LOG = System.getLogger("io.blockxfer.directory.Membership");
    /** The first retry of a failed publication waits this long, each next one twice as long up to MAX_RETRY. */
    static final Duration FIRST_RETRY = Duration.ofMillis(250);
    static final Duration MAX_RETRY = Duration.ofSeconds(8);
    /** The most restores of this process's entry in a second, however fast it is overwritten. */
    static final int MAX_RESTORES_PER_SECOND = 4;
    private static final long RESTORE_GAP_NANOS = 1_000_000_000L / MAX_RESTORES_PER_SECOND;
    private static final long RESTORE_RETRY_NANOS = 1_000_000_000L;

    private final Directory directory;
    private final String memberId;
    private final @Nullable String group;
    private final Duration ttl;
    private final @Nullable DeploymentKeyRing ring;
    private final PeerDescriptor descriptor;
    private final SerialLoop loop;
    private final Signals signals;
    private final Registrations registrations;

    private volatile @Nullable Publication publication;
    private volatile long epoch;
    private byte @Nullable [] ownValue;
    private long ownSeen;
    private boolean snapshotSeen;
    private boolean reRegisterDue; // the entry was lost; the next publication re-registers the members
    private long retryNanos = FIRST_RETRY.toNanos();
    private SerialLoop.@Nullable Timer retry;
    private SerialLoop.@Nullable Timer restoreTimer;
    private @Nullable String restoreReason;
    private String restoreKind = "";
    private String restoreKey = "";
    private boolean restoredBefore;
    private long lastRestoreAt;
    private long restoredRevision;
    /** Someone else's bytes (or nothing) sit under this process's key since the last restore, as far as seen. */
    private volatile boolean keyForeign;
    /** A newer epoch of another process holds the member id: nothing is published any more. */
    private volatile boolean superseded;
    /**
     * The publications of this process that failed after their value was made, newest last, at
     * most {@value #MAX_ATTEMPTS}: a write whose answer was lost (a deadline passed while etcd came
     * back) may have landed, and is recognised as this process's own, not another process's.
     */
    private final ArrayDeque<Attempt> attempts = new ArrayDeque<>();
    static final int MAX_ATTEMPTS = 8;
    /** The restore kind of an entry overwritten by this process's own late publication. */
    static final String LATE_ATTEMPT = "LATE_OWN_PUBLICATION";

    @SuppressWarnings("ArrayRecordComponent")
    private record Attempt(long epoch, byte[] value) {
    }

    /** How many times a goodbye tries to delete the key before it leaves the rest to the revoke. */
    static final int GOODBYE_ATTEMPTS = 3;

    OwnEntry(Directory directory, String memberId, @Nullable String group, Duration ttl,
            @Nullable DeploymentKeyRing ring, PeerDescriptor descriptor, SerialLoop loop, Signals signals,
            Registrations registrations) {
        this.directory = directory;
        this.memberId = memberId;
        this.group = group;
        this.ttl = ttl;
        this.ring = ring;
        this.descriptor = descriptor;
        this.loop = loop;
        this.signals = signals;
        this.registrations = registrations;
    }

    /** The epoch of the entry as last published; 0 before the first publication. */
    long epoch() {
        return epoch;
    }

    /** The publication of the entry, if any. */
    @Nullable Publication publication() {
        return publication;
    }

    /**
     * Whether the last thing seen of this process's key was someone else's write or delete, not
     * yet undone by a restore.
     */
    boolean keyForeign() {
        return keyForeign;
    }

    /** Every watch's snapshot has been applied: what is seen of the own key from now on is news. */
    void snapshotSeen() {
        snapshotSeen = true;
    }

    /**
     * Publishes the entry with a new epoch, made for the lease the directory grants; throws if the
     * directory refuses or cannot be reached.
     */
    void publish() {
        long next = EpochClock.next(Math.max(Math.max(ownSeen, epoch), lastAttempt()));
        byte[][] made = new byte[1][];
        Publication p;
        try {
            p = directory.publish(memberId, group, lease -> {
                made[0] = MemberEntry.of(memberId, next, lease, group, descriptor).encode(ring);
                return made[0];
            }, ttl, lossListener());
        } catch (RuntimeException e) {
            if (made[0] != null) {
                attempted(next, made[0]); // its write may have landed, its answer lost
            }
            throw e;
        }
        ownValue = made[0];
        epoch = next;
        publication = p;
        registrations.published();
        retryNanos = FIRST_RETRY.toNanos();
        cancelRestore();
        restoredRevision = 0;
        keyForeign = false;
        signals.published(next);
        if (reRegisterDue) {
            reRegisterDue = false;
            loop.execute(registrations::reRegisterAll); // after the news already queued (a resync's deletes)
        }
    }

    /** The directory is back: a publication waiting for its retry is tried at once. */
    void reconnected() {
        if (retry != null && publication == null) {
            retry.cancel();
            retry = null;
            retryNanos = FIRST_RETRY.toNanos();
            tryPublish();
        }
    }

    /** An accepted entry of this process's member id was put under {@code key} at {@code revision}. */
    void put(Accepted entry, String key, long revision) {
        ownSeen = Math.max(ownSeen, entry.epoch());
        Publication p = publication;
        byte[] mine = ownValue;
        if (p != null && mine != null && entry.sameAs(epoch, mine)) {
            return; // this process's entry
        }
        if (!snapshotSeen || (p != null && revision <= p.revision())) {
            return; // an earlier incarnation's entry, replaced by the next publication, or older than it
        }
        if (isAttempt(entry)) {
            // this process's own publication, reported failed, whose write landed: not another process
            if (p != null) {
                overwritten(p, key, revision, LATE_ATTEMPT, "overwritten by this process's own earlier"
                        + " publication of epoch " + entry.epoch() + ", reported failed, whose write landed late");
            }
            return;
        }
        if (entry.epoch() > epoch) {
            signals.refused(new Refusal(EntryCheck.printable(key), memberId, Refusal.Reason.MEMBER_ID_IN_USE,
                    "another process published a valid entry under this process's member id '" + memberId
                    + "' (epoch " + entry.epoch() + ", this process's " + epoch + "); give each process its own id",
                    revision, entry.epoch()));
            supersede(entry.epoch(), key);
            return;
        }
        signals.refused(new Refusal(EntryCheck.printable(key), memberId, Refusal.Reason.STALE_EPOCH,
                "an entry of this process's member id '" + memberId + "' with the older epoch " + entry.epoch()
                + " replaced the one of epoch " + epoch, revision, entry.epoch()), false);
        if (p != null) {
            overwritten(p, key, revision, Refusal.Reason.STALE_EPOCH.name(), "overwritten by someone else"
                    + " with an older entry of this member id (epoch " + entry.epoch() + ")");
        }
    }

    /** A refused value was put under this process's key at {@code revision}. */
    void refused(Refusal r, String key, long revision) {
        Publication p = publication;
        if (p != null && revision > p.revision()) {
            overwritten(p, key, revision, r.reason().name(), "overwritten by someone else with an entry refused as "
                    + r.reason() + " (" + r.message() + ")");
        }
    }

    /** This process's key was deleted at {@code revision}. */
    void deleted(String key, long revision) {
        Publication p = publication;
        if (p != null && revision > p.revision()) {
            overwritten(p, key, revision, "DELETED", "deleted (not by its lease, which lives)");
        }
    }

    /** Remembers a publication that failed after its value was made: its write may still land. */
    private void attempted(long attemptEpoch, byte[] value) {
        if (attempts.size() == MAX_ATTEMPTS) {
            attempts.removeFirst();
        }
        attempts.addLast(new Attempt(attemptEpoch, value));
    }

    private boolean isAttempt(Accepted entry) {
        for (Attempt a : attempts) {
            if (entry.sameAs(a.epoch(), a.value())) {
                return true;
            }
        }
        return false;
    }

    private long lastAttempt() {
        return attempts.isEmpty() ? 0 : attempts.getLast().epoch();
    }

    /** Whether another process's newer entry took this member id, so that nothing is published any more. */
    boolean isSuperseded() {
        return superseded;
    }

    /**
     * A newer epoch of another process holds this member id: stops publishing for good. The lease is
     * revoked (the newer entry is on the other process's lease and stays; a group key of this
     * process's own goes), nothing is restored, and a lost lease is not published again.
     */
    private void supersede(long newer, String key) {
        if (superseded) {
            return;
        }
        superseded = true;
        cancelRestore();
        SerialLoop.Timer t = retry;
        retry = null;
        if (t != null) {
            t.cancel();
        }
        reRegisterDue = false;
        Publication p = publication;
        publication = null;
        keyForeign = false;
        signals.superseded(epoch, newer, EntryCheck.printable(key));
        if (p != null) {
            try {
                p.close();
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "membership '" + memberId + "': revoking its superseded lease failed: " + e);
            }
        }
    }

    /**
     * The goodbye, after the loop stopped: deletes this process's keys while they hold what it last
     * saw there ({@link Publication#deleteIfAt}), then revokes the lease. When someone else's write
     * sits under the key (seen, or landing unseen just before), the entry is restored first and the
     * delete made at the restore's revision, up to {@value #GOODBYE_ATTEMPTS} times; a valid newer
     * entry of another process under the same id is left alone. So a stranger's write never leaves
     * a key behind that readers would take for a member still there.
     */
    void goodbye(EntryCheck check) {
        Publication p = publication;
        if (p == null) {
            return;
        }
        try {
            long at = keyForeign ? p.restore() : Math.max(p.revision(), restoredRevision);
            for (int attempt = 1; !p.deleteIfAt(at) && attempt < GOODBYE_ATTEMPTS; attempt++) {
                // a write landed since: look at it before writing over it
                DirectorySnapshot now = directory.read(DirectoryScope.member(memberId))
                        .get(directory.operationTimeout().toMillis(), TimeUnit.MILLISECONDS);
                if (now.entries().isEmpty() || newerProcess(check, now.entries().get(0))) {
                    break;
                }
                at = p.restore();
            }
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            LOG.log(Level.DEBUG, () -> "membership '" + memberId + "': its goodbye could not delete its key (" + e
                    + "); the revoke deletes what is still on its lease");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        p.close();
    }

    /** Whether {@code e} is a valid entry of another process under this member id, of a newer epoch. */
    private boolean newerProcess(EntryCheck check, DirectoryEntry e) {
        EntryCheck.Result r = check.check(e.key(), e.value(), e.revision(), e.lease());
        byte[] mine = ownValue;
        return r instanceof EntryCheck.Ok ok && ok.entry().epoch() > epoch
                && (mine == null || !ok.entry().sameAs(epoch, mine)) && !isAttempt(ok.entry());
    }

    private PublicationListener lossListener() {
        return (lost, reason) -> loop.execute(() -> {
            if (lost == publication) {
                gone(lost, "its lease was lost: " + reason);
            }
        });
    }

    /**
     * This process's key, at {@code revision}, no longer holds its entry while its lease may still
     * live: restores it, at once unless the last restore was less than a restore gap ago (then
     * once that gap is over, one restore for every overwrite meanwhile).
     */
    private void overwritten(Publication p, String key, long revision, String kind, String what) {
        if (revision <= restoredRevision) {
            return; // older than the last restore, which undid it
        }
        keyForeign = true;
        restoreReason = what;
        restoreKind = kind;
        restoreKey = EntryCheck.printable(key);
        if (restoreTimer != null) {
            return; // a restore is due already
        }
        long wait = restoredBefore ? lastRestoreAt + RESTORE_GAP_NANOS - loop.ticker().nanos() : 0;
        if (wait > 0) {
            restoreTimer = loop.schedule(() -> restore(p), wait);
        } else {
            restore(p);
        }
    }

    private void restore(Publication p) {
        restoreTimer = null;
        String reason = restoreReason;
        restoreReason = null;
        if (p != publication || reason == null) {
            return; // published anew, or lost, meanwhile
        }
        restoredBefore = true;
        lastRestoreAt = loop.ticker().nanos();
        long at;
        try {
            at = p.restore();
        } catch (DirectoryUnavailableException e) {
            restoreReason = reason;
            restoreTimer = loop.schedule(() -> restore(p), RESTORE_RETRY_NANOS);
            LOG.log(Level.DEBUG, () -> "membership '" + memberId + "' could not restore its entry yet: " + e);
            return;
        } catch (IllegalStateException e) {
            return; // lost (its listener says so, and the entry is published anew) or closed
        } catch (RuntimeException e) {
            gone(p, "it was " + reason + ", and the directory could not restore it (" + e + ")");
            return;
        }
        restoredRevision = Math.max(restoredRevision, at);
        if (restoreTimer == null) {
            keyForeign = false; // no overwrite seen since this restore's
        }
        signals.restored(epoch, restoreKind, restoreKey, reason);
    }

    private void cancelRestore() {
        SerialLoop.Timer t = restoreTimer;
        restoreTimer = null;
        restoreReason = null;
        if (t != null) {
            t.cancel();
        }
    }

    private void gone(Publication p, String reason) {
        cancelRestore();
        publication = null;
        reRegisterDue = true;
        signals.leaseLost(epoch, reason);
        try {
            p.close(); // revokes the lease if it still lives (the entry alone was deleted)
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "membership '" + memberId + "': closing a lost publication failed: " + e);
        }
        tryPublish();
    }

    private void tryPublish() {
        retry = null;
        if (superseded) {
            return;
        }
        try {
            publish();
        } catch (RuntimeException e) {
            signals.publishFailed(e);
            long wait = retryNanos;
            retryNanos = Math.min(retryNanos * 2, MAX_RETRY.toNanos());
            retry = loop.schedule(() -> {
                if (publication == null) {
                    tryPublish();
                }
            }, wait);
        }
    }
}
