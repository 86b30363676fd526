package io.blockxfer.directory.internal;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryEntry;
import io.blockxfer.directory.DirectoryEvent;
import io.blockxfer.directory.DirectoryListener;
import io.blockxfer.directory.DirectorySnapshot;
import io.blockxfer.directory.DirectoryUnavailableException;
import io.blockxfer.directory.MemberEntry;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import io.blockxfer.directory.Refusal;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.RegistrationSupersededException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * A membership's state and what it does with each thing the directory says, all on the
 * membership's {@link SerialLoop}: checks each entry ({@link EntryCheck}), decides what the
 * transport should hold ({@link MemberTable}), registers and removes peers, and keeps this
 * process's own entry published: it restores the entry under its lease when someone else
 * overwrote or deleted it (at most {@link #MAX_RESTORES_PER_SECOND} a second, nothing else
 * changes), and publishes it again with a new epoch when its lease is lost.
 *
 * <p>An entry refused as {@link Refusal.Reason#WRONG_LEASE} (a copy of a member's entry off the
 * member's lease) removes that member as a delete would: the key no longer holds a live entry of
 * it. Other refusals change nothing for the member.
 *
 * <p>While a member's registration is replaced (a new epoch, a re-registration) the member is not
 * in {@link #members()}: the transport tears the old registration down when the new one starts,
 * so {@code members()} never lists a member whose registration is in progress.
 *
 * <p>When its own entry is lost the other members remove this process and tear down their side of
 * its connections, while their entries, and so this process's {@link MemberTable}, stay as they
 * were. So the first publication after a loss re-registers every member the table holds settled
 * ({@link MemberTable#settled()}): the transport replaces each registration and builds fresh
 * connections, reported as {@link Signals#reRegistered}. A member whose change is still held by the
 * coalescing gets that change instead, and one removed meanwhile is not among them, nor one whose
 * registration began after that publication (news the watch delivered while the publication was
 * under way, such as a member that joined during the outage: its connections are new already,
 * and registering it twice would report it added twice).
 *
 * <p><b>Thread safety:</b> state is confined to the loop's thread; {@link #members()},
 * {@link #epoch()} and {@link #started()} may be read from any thread.
 */
public final class MembershipCore {

    private static final System.Logger LOG = System.getLogger("io.blockxfer.directory.Membership");
    /** The first retry of a failed publication waits this long, each next one twice as long up to MAX_RETRY. */
    static final Duration FIRST_RETRY = Duration.ofMillis(250);
    static final Duration MAX_RETRY = Duration.ofSeconds(8);
    /** The most restores of this process's entry in a second, however fast it is overwritten. */
    public static final int MAX_RESTORES_PER_SECOND = 4;
    private static final long RESTORE_GAP_NANOS = 1_000_000_000L / MAX_RESTORES_PER_SECOND;
    private static final long RESTORE_RETRY_NANOS = 1_000_000_000L;

    private final DataTransport transport;
    private final Directory directory;
    private final String memberId;
    private final Duration ttl;
    private final @Nullable DeploymentKeyRing ring;
    private final PeerDescriptor descriptor;
    private final EntryCheck check;
    private final MemberTable table;
    private final SerialLoop loop;
    private final Signals signals;
    private final Map<String, Long> registered = new ConcurrentHashMap<>();
    /** Loop only: members whose registration is being replaced, with the epoch they were registered with. */
    private final Map<String, Long> replacing = new HashMap<>();
    /** Loop only: the publication count at which each member's latest registration began. */
    private final Map<String, Long> registeredAt = new HashMap<>();
    private final CompletableFuture<Void> started = new CompletableFuture<>();

    // loop thread only, but publication and epoch are read by close and accessors
    private volatile @Nullable Publication publication;
    private volatile long epoch;
    private byte @Nullable [] ownValue;
    private long ownSeen;
    private boolean snapshotSeen;
    private boolean reRegisterDue; // this process's entry was lost; the next publication re-registers the members
    private long publications; // how many times this process's entry was published
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
    private volatile boolean ownKeyForeign;

    public MembershipCore(DataTransport transport, Directory directory, String memberId, Duration ttl,
            @Nullable DeploymentKeyRing ring, PeerDescriptor descriptor, Duration flapInterval, SerialLoop loop,
            Signals signals) {
        this.transport = transport;
        this.directory = directory;
        this.memberId = memberId;
        this.ttl = ttl;
        this.ring = ring;
        this.descriptor = descriptor;
        this.check = new EntryCheck(directory.prefix(), ring, transport.backendName(), transport.region().blockLength(),
                transport.configFingerprint());
        this.table = new MemberTable(flapInterval.toNanos(), MemberTable.REMEMBERED_LEFT);
        this.loop = loop;
        this.signals = signals;
    }

    /** Completes once the snapshot was applied and the first publication succeeded, or with why it failed. */
    public CompletableFuture<Void> started() {
        return started;
    }

    /** The members registered now, with their epochs. */
    public Map<String, Long> members() {
        return Map.copyOf(registered);
    }

    /** The epoch of this process's current entry; 0 before the first publication. */
    public long epoch() {
        return epoch;
    }

    /**
     * Whether the last thing seen of this process's key was someone else's write or delete, not
     * yet undone by a restore: a goodbye then restores the entry first, so that revoking the lease
     * deletes the key and every reader sees the member go.
     */
    public boolean ownKeyForeign() {
        return ownKeyForeign;
    }

    /** The publication of this process's entry, if any. */
    public @Nullable Publication publication() {
        return publication;
    }

    /** The listener to watch the directory with: it hands everything to the loop. */
    public DirectoryListener watchListener() {
        return new DirectoryListener() {
            @Override
            public void snapshot(DirectorySnapshot snapshot) {
                loop.execute(() -> onSnapshot(snapshot));
            }

            @Override
            public void changed(DirectoryEvent event) {
                loop.execute(() -> onChanged(event));
            }

            @Override
            public void disconnected(String reason) {
                loop.execute(() -> signals.disconnected(reason));
            }

            @Override
            public void reconnected(long revision, boolean resync) {
                loop.execute(() -> onReconnected(revision, resync));
            }

            @Override
            public String toString() {
                return "membership '" + memberId + "'";
            }
        };
    }

    private long now() {
        return loop.ticker().nanos();
    }

    // ------------------------------------------------------------------ the directory's news

    private void onSnapshot(DirectorySnapshot snapshot) {
        for (DirectoryEntry e : snapshot.entries()) {
            onPut(e.key(), e.value(), e.revision(), e.lease());
        }
        snapshotSeen = true;
        if (publication == null && !started.isDone()) {
            try {
                publish();
                started.complete(null);
            } catch (RuntimeException e) {
                started.completeExceptionally(e);
            }
        }
    }

    private void onChanged(DirectoryEvent event) {
        if (event.type() == DirectoryEvent.Type.PUT) {
            onPut(event.key(), event.value(), event.revision(), event.lease());
            return;
        }
        String id = check.memberId(event.key()).orElse(null);
        if (id == null) {
            return; // nothing to delete: the key named no member
        }
        if (id.equals(memberId)) {
            Publication p = publication;
            if (p != null && event.revision() > p.revision()) {
                ownEntryOverwritten(p, event.key(), event.revision(), "DELETED", "deleted (not by its lease, which"
                        + " lives)");
            }
            return;
        }
        carry(table.delete(id, now()));
    }

    private void onReconnected(long revision, boolean resync) {
        signals.reconnected(revision, resync);
        if (retry != null && publication == null) {
            retry.cancel();
            retry = null;
            retryNanos = FIRST_RETRY.toNanos();
            tryPublish();
        }
    }

    private void onPut(String key, byte[] value, long revision, long lease) {
        EntryCheck.Result result = check.check(key, value, revision, lease);
        if (result instanceof EntryCheck.Refused refused) {
            Refusal r = refused.refusal();
            boolean own = r.memberId().equals(memberId);
            signals.refused(r, !own);
            Publication p = publication;
            if (own) {
                if (p != null && revision > p.revision()) {
                    ownEntryOverwritten(p, key, revision, r.reason().name(), "overwritten by someone else with an"
                            + " entry refused as " + r.reason() + " (" + r.message() + ")");
                }
            } else if (r.reason() == Refusal.Reason.WRONG_LEASE) {
                carry(table.delete(r.memberId(), now())); // the key no longer holds a live entry of the member
            }
            return;
        }
        Accepted entry = ((EntryCheck.Ok) result).entry();
        if (entry.memberId().equals(memberId)) {
            onOwnPut(entry, key, revision);
            return;
        }
        MemberTable.Step step = table.put(entry, now());
        if (step instanceof MemberTable.Stale stale) {
            signals.refused(new Refusal(EntryCheck.printable(key), entry.memberId(), Refusal.Reason.STALE_EPOCH,
                    stale.message(), revision, entry.epoch()));
            return;
        }
        carry(step);
    }

    private void onOwnPut(Accepted entry, String key, long revision) {
        ownSeen = Math.max(ownSeen, entry.epoch());
        Publication p = publication;
        byte[] mine = ownValue;
        if (p != null && mine != null && entry.sameAs(epoch, mine)) {
            return; // this process's entry
        }
        if (!snapshotSeen || (p != null && revision <= p.revision())) {
            return; // an earlier incarnation's entry, replaced by the next publication, or older than it
        }
        if (entry.epoch() > epoch) {
            signals.refused(new Refusal(EntryCheck.printable(key), memberId, Refusal.Reason.MEMBER_ID_IN_USE,
                    "another process published a valid entry under this process's member id '" + memberId
                    + "' (epoch " + entry.epoch() + ", this process's " + epoch + "); give each process its own id",
                    revision, entry.epoch()));
            return;
        }
        signals.refused(new Refusal(EntryCheck.printable(key), memberId, Refusal.Reason.STALE_EPOCH,
                "an entry of this process's member id '" + memberId + "' with the older epoch " + entry.epoch()
                + " replaced the one of epoch " + epoch, revision, entry.epoch()), false);
        if (p != null) {
            ownEntryOverwritten(p, key, revision, Refusal.Reason.STALE_EPOCH.name(), "overwritten by someone else"
                    + " with an older entry of this member id (epoch " + entry.epoch() + ")");
        }
    }

    // ------------------------------------------------------------------ peers

    private void carry(MemberTable.Step step) {
        switch (step) {
            case MemberTable.Nothing n -> { }
            case MemberTable.Stale s -> throw new IllegalStateException("a stale entry is refused by the caller");
            case MemberTable.Add a -> register(a.entry(), false);
            case MemberTable.Remove r -> unregister(r.entry());
            case MemberTable.FlushAt f -> {
                var unused = loop.schedule(() -> carry(table.flush(f.memberId(), now())), f.at() - now());
            }
        }
    }

    /** Registers {@code entry}'s member; {@code again}: a re-registration at the epoch it holds, after a loss. */
    private void register(Accepted entry, boolean again) {
        String id = entry.memberId();
        long e = entry.epoch();
        // the transport tears the old registration down now: members() no longer lists the member
        Long held = registered.remove(id);
        if (held != null) {
            replacing.put(id, held);
        }
        registeredAt.put(id, publications);
        CompletableFuture<Void> f;
        try {
            f = transport.addPeerAsync(id, entry.descriptor());
        } catch (RuntimeException ex) {
            onRegistered(id, e, again, ex);
            return;
        }
        var unused = f.whenComplete((v, err) -> loop.execute(() -> onRegistered(id, e, again, err)));
    }

    private void onRegistered(String id, long e, boolean again, @Nullable Throwable err) {
        Accepted applied = table.applied(id);
        if (applied == null || applied.epoch() != e) {
            return; // superseded since: a later change of the member was applied
        }
        Throwable cause = unwrap(err);
        if (cause instanceof RegistrationSupersededException) {
            return; // a later registration of the member, or its removal, takes over
        }
        Long before = replacing.remove(id);
        if (cause == null) {
            registered.put(id, e);
            if (again && before != null && before == e) {
                signals.reRegistered(id, e);
            } else {
                // a re-registration that superseded the member's first registration, or its update, still in flight
                signals.added(id, e, before != null);
            }
        } else {
            signals.registrationFailed(id, e, cause);
            if (before != null) {
                signals.removed(id, before);
            }
        }
    }

    private void unregister(Accepted entry) {
        String id = entry.memberId();
        try {
            transport.removePeer(id);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "membership '" + memberId + "' could not remove peer '" + id + "': " + e);
        }
        registeredAt.remove(id);
        Long before = registered.remove(id);
        Long replaced = replacing.remove(id);
        if (before == null) {
            before = replaced;
        }
        if (before != null) {
            signals.removed(id, before);
        }
    }

    private static @Nullable Throwable unwrap(@Nullable Throwable t) {
        Throwable c = t;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }

    // ------------------------------------------------------------------ this process's entry

    /**
     * Publishes this process's entry with a new epoch, made for the lease the directory grants;
     * throws if the directory refuses or cannot be reached.
     */
    private void publish() {
        long next = EpochClock.next(Math.max(ownSeen, epoch));
        byte[][] made = new byte[1][];
        Publication p = directory.publish(memberId, lease -> {
            made[0] = MemberEntry.of(memberId, next, lease, descriptor).encode(ring);
            return made[0];
        }, ttl, lossListener());
        ownValue = made[0];
        epoch = next;
        publication = p;
        publications++;
        retryNanos = FIRST_RETRY.toNanos();
        cancelRestore();
        restoredRevision = 0;
        ownKeyForeign = false;
        signals.published(next);
        if (reRegisterDue) {
            reRegisterDue = false;
            loop.execute(this::reRegisterAll); // after the news already queued (a resync's deletes)
        }
    }

    private void reRegisterAll() {
        for (Accepted entry : table.settled()) {
            Long at = registeredAt.get(entry.memberId());
            if (at != null && at == publications) {
                continue; // registered after this publication (news queued behind it): its connections are new
            }
            register(entry, true);
        }
    }

    private PublicationListener lossListener() {
        return (lost, reason) -> loop.execute(() -> {
            if (lost == publication) {
                ownEntryGone(lost, "its lease was lost: " + reason);
            }
        });
    }

    /**
     * This process's key, at {@code revision}, no longer holds its entry while its lease may still
     * live: restores it, at once unless the last restore was less than a restore gap ago (then
     * once that gap is over, one restore for every overwrite meanwhile).
     */
    private void ownEntryOverwritten(Publication p, String key, long revision, String kind, String what) {
        if (revision <= restoredRevision) {
            return; // older than the last restore, which undid it
        }
        ownKeyForeign = true;
        restoreReason = what;
        restoreKind = kind;
        restoreKey = EntryCheck.printable(key);
        if (restoreTimer != null) {
            return; // a restore is due already
        }
        long wait = restoredBefore ? lastRestoreAt + RESTORE_GAP_NANOS - now() : 0;
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
        lastRestoreAt = now();
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
            ownEntryGone(p, "it was " + reason + ", and the directory could not restore it (" + e + ")");
            return;
        }
        restoredRevision = Math.max(restoredRevision, at);
        if (restoreTimer == null) {
            ownKeyForeign = false; // no overwrite seen since this restore's
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

    private void ownEntryGone(Publication p, String reason) {
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
