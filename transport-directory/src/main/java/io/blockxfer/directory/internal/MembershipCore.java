package io.blockxfer.directory.internal;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryEntry;
import io.blockxfer.directory.DirectoryEvent;
import io.blockxfer.directory.DirectoryListener;
import io.blockxfer.directory.DirectoryScope;
import io.blockxfer.directory.DirectoryWatch;
import io.blockxfer.directory.MemberResolutionException;
import io.blockxfer.directory.DirectorySnapshot;
import io.blockxfer.directory.DirectoryUnavailableException;
import io.blockxfer.directory.MemberEntry;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import io.blockxfer.directory.Refusal;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PeerTraffic;
import io.blockxfer.transport.RegistrationSupersededException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
 * <p><b>What it follows.</b> Every member of the prefix ({@link Following#all()}: one watch of
 * {@link DirectoryScope#members()}), or only the members of some groups (one watch per group) and
 * this process's own keys; and, in every mode, each member asked for by {@link #resolve}: one watch
 * of that member's key, whose snapshot is the read that resolves it, and whose events then follow
 * it as any member is followed. At most {@code maxHeld} members are held through resolution; past
 * it the one idle longest (no transfer submitted since it was last sampled, none in flight, by
 * {@link DataTransport#traffic}) is released, never one with transfers in flight or still being
 * resolved; while every held member is busy the set stays above its limit and is trimmed once
 * one is idle (sampled every second).
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
    /** How often the traffic of the members held through resolution is sampled. */
    static final long SAMPLE_NANOS = 1_000_000_000L;

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
    private final Following following;
    private final @Nullable String group;
    private final int maxHeld;
    private final long resolveTimeoutNanos;
    /** Loop only: the members held through resolve(), in the order they were resolved. */
    private final Map<String, Resolution> resolutions = new LinkedHashMap<>();
    /** Loop only: members whose latest entry came from a followed scope (every member, or a group). */
    private final Set<String> followed = new HashSet<>();
    /** Every resolve() future not yet completed, so that close fails them. */
    private final Set<Waiter> outstanding = ConcurrentHashMap.newKeySet();
    private final List<DirectoryWatch> watches = new ArrayList<>();
    private int snapshotsDue;
    private volatile boolean closing;
    private SerialLoop.@Nullable Timer sampler;

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

    /**
     * What a membership follows eagerly: every member, or the members of some groups (possibly
     * none: on demand only).
     */
    public record Following(boolean everyMember, Set<String> groups) {
        public Following {
            groups = Set.copyOf(groups);
        }

        /** Every member of the prefix: the eager mode. */
        public static Following all() {
            return new Following(true, Set.of());
        }

        /** The members of {@code groups} only; none: nobody eagerly. */
        public static Following groups(Set<String> groups) {
            return new Following(false, groups);
        }
    }

    public MembershipCore(DataTransport transport, Directory directory, String memberId, Duration ttl,
            @Nullable DeploymentKeyRing ring, PeerDescriptor descriptor, Duration flapInterval, SerialLoop loop,
            Signals signals, Following following, @Nullable String group, int maxHeld, Duration resolveTimeout) {
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
        this.following = following;
        this.group = group;
        this.maxHeld = maxHeld;
        this.resolveTimeoutNanos = resolveTimeout.toNanos();
    }

    /**
     * Starts the watches of what this membership follows and of its own keys; their snapshots
     * lead to the first publication ({@link #started()}). On failure the watches opened are closed.
     *
     * @throws io.blockxfer.directory.DirectoryUnavailableException if a listing failed
     */
    public void startWatches() {
        List<DirectoryScope> scopes = new ArrayList<>();
        List<Source> sources = new ArrayList<>();
        if (following.everyMember()) {
            scopes.add(DirectoryScope.members());
            sources.add(Source.FOLLOWED);
        } else {
            scopes.add(DirectoryScope.member(memberId));
            sources.add(Source.OWN);
        }
        for (String g : following.groups()) {
            scopes.add(DirectoryScope.group(g));
            sources.add(Source.FOLLOWED);
        }
        String own = group;
        if (own != null && !following.groups().contains(own)) {
            scopes.add(DirectoryScope.groupMember(own, memberId));
            sources.add(Source.OWN);
        }
        snapshotsDue = scopes.size();
        try {
            for (int i = 0; i < scopes.size(); i++) {
                watches.add(directory.watch(scopes.get(i), listener(sources.get(i), i == 0)));
            }
        } catch (RuntimeException e) {
            closeWatches();
            throw e;
        }
    }

    /** Closes the watches of what this membership follows; for close. */
    public void closeWatches() {
        closing = true;
        for (DirectoryWatch w : watches) {
            w.close();
        }
    }

    /**
     * After the loop has stopped: closes every resolution's watch and fails every resolution still
     * outstanding as {@link MemberResolutionException.Reason#CLOSED}.
     */
    public void closeResolutions() {
        closing = true;
        for (Resolution r : List.copyOf(resolutions.values())) {
            DirectoryWatch w = r.watch;
            if (w != null) {
                w.close();
            }
        }
        resolutions.clear();
        for (Waiter w : List.copyOf(outstanding)) {
            w.future.completeExceptionally(new MemberResolutionException(w.memberId,
                    MemberResolutionException.Reason.CLOSED, "membership '" + memberId + "' was closed", null, null));
        }
        outstanding.clear();
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

    /** Where an entry came from. */
    private enum Source {
        /** A scope this membership follows: every member, or a group. */
        FOLLOWED,
        /** This process's own keys. */
        OWN,
        /** A member's key, watched because it was resolved. */
        RESOLVED
    }

    /**
     * A listener of one of the membership's own watches: it hands everything to the loop; only the
     * primary one (the first) reports disconnects and reconnects.
     */
    private DirectoryListener listener(Source source, boolean primary) {
        return new DirectoryListener() {
            @Override
            public void snapshot(DirectorySnapshot snapshot) {
                loop.execute(() -> onSnapshot(snapshot, source));
            }

            @Override
            public void changed(DirectoryEvent event) {
                loop.execute(() -> onChanged(event, source));
            }

            @Override
            public void disconnected(String reason) {
                if (primary) {
                    loop.execute(() -> signals.disconnected(reason));
                }
            }

            @Override
            public void reconnected(long revision, boolean resync) {
                if (primary) {
                    loop.execute(() -> onReconnected(revision, resync));
                }
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

    private void onSnapshot(DirectorySnapshot snapshot, Source source) {
        for (DirectoryEntry e : snapshot.entries()) {
            onPut(e.key(), e.value(), e.revision(), e.lease(), source);
        }
        if (--snapshotsDue > 0) {
            return; // the first publication waits for every watch's snapshot
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

    private void onChanged(DirectoryEvent event, Source source) {
        if (event.type() == DirectoryEvent.Type.PUT) {
            onPut(event.key(), event.value(), event.revision(), event.lease(), source);
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
        if (source == Source.FOLLOWED) {
            followed.remove(id);
        }
        Resolution r = resolutions.get(id);
        if (r != null && source == Source.RESOLVED) {
            r.present = false;
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

    /** Handles a put; returns its refusal, or null when the entry was accepted (or is this process's). */
    private @Nullable Refusal onPut(String key, byte[] value, long revision, long lease, Source source) {
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
            return r;
        }
        Accepted entry = ((EntryCheck.Ok) result).entry();
        if (entry.memberId().equals(memberId)) {
            onOwnPut(entry, key, revision);
            return null;
        }
        MemberTable.Step step = table.put(entry, now());
        if (step instanceof MemberTable.Stale stale) {
            Refusal r = new Refusal(EntryCheck.printable(key), entry.memberId(), Refusal.Reason.STALE_EPOCH,
                    stale.message(), revision, entry.epoch());
            signals.refused(r);
            return r;
        }
        if (source == Source.FOLLOWED) {
            followed.add(entry.memberId());
        }
        Resolution res = resolutions.get(entry.memberId());
        if (res != null && source == Source.RESOLVED) {
            res.present = true;
        }
        carry(step);
        return null;
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
        Resolution res = resolutions.get(id);
        if (cause == null) {
            registered.put(id, e);
            if (again && before != null && before == e) {
                signals.reRegistered(id, e);
            } else {
                // a re-registration that superseded the member's first registration, or its update, still in flight
                signals.added(id, e, before != null);
            }
            if (res != null) {
                res.held = true;
                res.lastSubmitted = 0; // the transport counts a registration's submits from 0
                res.complete(e); // after the listeners heard of it
            }
        } else {
            signals.registrationFailed(id, e, cause);
            if (before != null) {
                signals.removed(id, before);
            }
            if (res != null) {
                res.fail(MemberResolutionException.Reason.REGISTRATION_FAILED, "member '" + id + "' (epoch " + e
                        + ") could not be registered in the transport: " + cause, null, cause);
                if (!res.held) {
                    drop(res, "its registration failed");
                }
            }
        }
    }

    private void unregister(Accepted entry) {
        String id = entry.memberId();
        Long before = removeFromTransport(id);
        if (before != null) {
            signals.removed(id, before);
        }
        Resolution res = resolutions.get(id);
        if (res != null) {
            res.fail(MemberResolutionException.Reason.RELEASED, "member '" + id + "' left (its entry was deleted)"
                    + " before it became writable", null, null);
        }
    }

    /**
     * Removes {@code id} from the transport and forgets its registration: the epoch it was
     * registered with (or was being replaced from), or null when it was neither.
     */
    private @Nullable Long removeFromTransport(String id) {
        try {
            transport.removePeer(id);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "membership '" + memberId + "' could not remove peer '" + id + "': " + e);
        }
        registeredAt.remove(id);
        Long before = registered.remove(id);
        Long replaced = replacing.remove(id);
        return before != null ? before : replaced;
    }

    private static @Nullable Throwable unwrap(@Nullable Throwable t) {
        Throwable c = t;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }


    // ------------------------------------------------------------------ members on demand

    /** One call of {@link #resolve}: its future and its timeout (identity equality). */
    private static final class Waiter {
        final String memberId;
        final CompletableFuture<Long> future = new CompletableFuture<>();
        SerialLoop.@Nullable Timer timer;

        Waiter(String memberId) {
            this.memberId = memberId;
        }

        void cancelTimer() {
            SerialLoop.Timer t = timer;
            if (t != null) {
                t.cancel();
            }
        }
    }

    /** A member held through {@link #resolve}: its watch, its callers, and how recently it was used. */
    private final class Resolution {
        final String id;
        @Nullable DirectoryWatch watch;
        /** Registered once at least (it counts against the limit from its first resolve on). */
        boolean held;
        /** Whether its key holds an entry, as last seen. */
        boolean present;
        boolean snapshotSeen;
        long lastActive;
        long lastSubmitted = -1;
        final List<Waiter> waiters = new ArrayList<>();

        Resolution(String id, long now) {
            this.id = id;
            this.lastActive = now;
        }

        void complete(long epoch) {
            for (Waiter w : waiters) {
                w.cancelTimer();
                outstanding.remove(w);
                w.future.complete(epoch);
            }
            waiters.clear();
        }

        void fail(MemberResolutionException.Reason reason, String message, @Nullable Refusal refusal,
                @Nullable Throwable cause) {
            for (Waiter w : waiters) {
                w.cancelTimer();
                outstanding.remove(w);
                w.future.completeExceptionally(new MemberResolutionException(id, reason, message, refusal, cause));
            }
            waiters.clear();
        }
    }

    /**
     * Resolves {@code id}: completes with its epoch once the transport holds it, at once when it is
     * held already; otherwise watches its key, whose snapshot is the read, checks the entry as every
     * entry is checked, and registers it. Concurrent calls share one resolution. Any thread.
     */
    public CompletableFuture<Long> resolve(String id) {
        Waiter w = new Waiter(id);
        if (closing) {
            w.future.completeExceptionally(new MemberResolutionException(id, MemberResolutionException.Reason.CLOSED,
                    "membership '" + memberId + "' is closed", null, null));
            return w.future;
        }
        outstanding.add(w);
        loop.execute(() -> onResolve(id, w));
        if (closing && outstanding.remove(w)) { // closed while handing it over: the loop may have dropped it
            w.future.completeExceptionally(new MemberResolutionException(id, MemberResolutionException.Reason.CLOSED,
                    "membership '" + memberId + "' is closed", null, null));
        }
        return w.future;
    }

    private void onResolve(String id, Waiter w) {
        CompletableFuture<Long> f = w.future;
        if (f.isDone()) {
            return;
        }
        long now = now();
        Long held = registered.get(id);
        Resolution r = resolutions.get(id);
        if (r == null && held != null && followed.contains(id)) {
            outstanding.remove(w);
            f.complete(held); // a followed member, held already
            return;
        }
        if (r != null) {
            r.lastActive = now;
            if (held != null && !replacing.containsKey(id)) {
                outstanding.remove(w);
                f.complete(held);
                return;
            }
            if (r.snapshotSeen && !r.present) {
                outstanding.remove(w);
                f.completeExceptionally(new MemberResolutionException(id,
                        MemberResolutionException.Reason.NO_SUCH_MEMBER, "member '" + id + "' has no entry under "
                        + directory.prefix() + id + " now (it left)", null, null));
                return;
            }
            await(r, w);
            return;
        }
        Resolution fresh = new Resolution(id, now);
        resolutions.put(id, fresh);
        await(fresh, w);
        startSampler();
        Thread.ofVirtual().name("blockxfer-resolve-" + id).start(() -> openWatch(fresh));
        trim();
    }

    private void await(Resolution r, Waiter w) {
        w.timer = loop.schedule(() -> onTimeout(r, w), resolveTimeoutNanos);
        r.waiters.add(w);
    }

    /** Off the loop (a listing may wait for the directory): opens the resolution's watch. */
    private void openWatch(Resolution r) {
        DirectoryWatch w;
        try {
            w = directory.watch(DirectoryScope.member(r.id), resolutionListener(r));
        } catch (RuntimeException e) {
            loop.execute(() -> {
                if (resolutions.get(r.id) == r) {
                    r.fail(MemberResolutionException.Reason.UNAVAILABLE, "member '" + r.id + "' could not be read from "
                            + directory + ": " + e, null, e);
                    drop(r, "its entry could not be read");
                }
            });
            return;
        }
        loop.execute(() -> {
            if (resolutions.get(r.id) == r) {
                r.watch = w;
            } else {
                w.close(); // dropped meanwhile
            }
        });
        if (closing) {
            w.close();
        }
    }

    private DirectoryListener resolutionListener(Resolution r) {
        return new DirectoryListener() {
            @Override
            public void snapshot(DirectorySnapshot snapshot) {
                loop.execute(() -> onResolutionSnapshot(r, snapshot));
            }

            @Override
            public void changed(DirectoryEvent event) {
                loop.execute(() -> {
                    if (resolutions.get(r.id) == r) {
                        onChanged(event, Source.RESOLVED);
                    }
                });
            }

            @Override
            public String toString() {
                return "membership '" + memberId + "', member '" + r.id + "'";
            }
        };
    }

    private void onResolutionSnapshot(Resolution r, DirectorySnapshot snapshot) {
        if (resolutions.get(r.id) != r) {
            return;
        }
        r.snapshotSeen = true;
        String key = directory.prefix() + r.id;
        DirectoryEntry found = null;
        for (DirectoryEntry e : snapshot.entries()) {
            if (e.key().equals(key)) {
                found = e;
            }
        }
        if (found == null) {
            r.fail(MemberResolutionException.Reason.NO_SUCH_MEMBER, "no member '" + r.id + "': " + directory
                    + " holds no entry under " + key, null, null);
            drop(r, "it has no entry");
            return;
        }
        Refusal refusal = onPut(found.key(), found.value(), found.revision(), found.lease(), Source.RESOLVED);
        if (refusal != null) {
            r.fail(MemberResolutionException.Reason.REFUSED, "the entry of member '" + r.id + "' was refused as "
                    + refusal.reason() + ": " + refusal.message(), refusal, null);
            drop(r, "its entry was refused");
            return;
        }
        r.present = true;
        Long held = registered.get(r.id);
        if (held != null && !replacing.containsKey(r.id)) {
            r.held = true;
            r.complete(held); // held already (a followed group, or the same entry again)
        }
    }

    private void onTimeout(Resolution r, Waiter w) {
        if (!r.waiters.remove(w)) {
            return;
        }
        outstanding.remove(w);
        w.future.completeExceptionally(new MemberResolutionException(r.id, MemberResolutionException.Reason.TIMEOUT,
                "member '" + r.id + "' was not writable within " + Duration.ofNanos(resolveTimeoutNanos).toMillis()
                + " ms", null, null));
        if (!r.held && r.waiters.isEmpty() && resolutions.get(r.id) == r) {
            drop(r, "it was not writable within the resolve timeout");
        }
    }

    /** Releases {@code id} if it is held through resolution; any thread; waits for the loop. */
    public boolean release(String id) {
        if (loop.inLoop()) {
            return releaseNow(id, "released by the application");
        }
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        loop.execute(() -> done.complete(releaseNow(id, "released by the application")));
        try {
            return done.get(directory.operationTimeout().toMillis() + 5_000, java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while releasing member '" + id + "'", e);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("membership '" + memberId + "' did not release member '" + id + "'", e);
        }
    }

    private boolean releaseNow(String id, String why) {
        Resolution r = resolutions.get(id);
        if (r == null) {
            return false;
        }
        r.fail(MemberResolutionException.Reason.RELEASED, "member '" + id + "' was released (" + why + ")", null,
                null);
        drop(r, why);
        return true;
    }

    /**
     * Stops following a resolved member: closes its watch, and removes it from the transport unless
     * a followed scope holds it; its waiters were told already.
     */
    private void drop(Resolution r, String why) {
        resolutions.remove(r.id);
        DirectoryWatch w = r.watch;
        if (w != null) {
            w.close();
        }
        if (followed.contains(r.id)) {
            return; // still a member of a followed scope
        }
        Accepted applied = table.applied(r.id);
        MemberTable.Step step = table.release(r.id);
        boolean registeredNow = registered.containsKey(r.id);
        Long before = null;
        if (step instanceof MemberTable.Remove || registeredNow || replacing.containsKey(r.id)) {
            before = removeFromTransport(r.id);
        } else {
            registeredAt.remove(r.id);
        }
        long epoch = before != null ? before : applied != null ? applied.epoch() : 0;
        if (r.held || registeredNow) {
            signals.released(r.id, epoch, why);
        }
    }

    /** Past the limit: releases the members idle longest, never one in flight or still resolving. */
    private void trim() {
        if (resolutions.size() <= maxHeld) {
            return;
        }
        sample();
        while (resolutions.size() > maxHeld) {
            Resolution victim = null;
            for (Resolution r : resolutions.values()) {
                if (!r.held || !r.waiters.isEmpty() || inFlight(r.id) > 0) {
                    continue;
                }
                if (victim == null || r.lastActive < victim.lastActive) {
                    victim = r;
                }
            }
            if (victim == null) {
                return; // every held member is busy: the sampler tries again in a second
            }
            releaseNow(victim.id, "the held set passed its limit of " + maxHeld + " members, and this one had been"
                    + " idle longest");
        }
    }

    private int inFlight(String id) {
        try {
            return transport.traffic(id).map(PeerTraffic::inFlight).orElse(0);
        } catch (IllegalStateException e) {
            return 0; // the transport is closed
        }
    }

    /** Notes which resolved members submitted something, or have transfers in flight, since the last look. */
    private void sample() {
        long now = now();
        for (Resolution r : resolutions.values()) {
            Optional<PeerTraffic> t;
            try {
                t = transport.traffic(r.id);
            } catch (IllegalStateException e) {
                return; // the transport is closed
            }
            if (t.isPresent() && (t.get().submitted() != r.lastSubmitted || t.get().inFlight() > 0)) {
                r.lastActive = now;
                r.lastSubmitted = t.get().submitted();
            }
        }
    }

    private void startSampler() {
        if (sampler == null) {
            sampler = loop.schedule(this::onSample, SAMPLE_NANOS);
        }
    }

    private void onSample() {
        sampler = null;
        if (resolutions.isEmpty()) {
            return;
        }
        sample();
        trim();
        startSampler();
    }

    // ------------------------------------------------------------------ this process's entry

    /**
     * Publishes this process's entry with a new epoch, made for the lease the directory grants;
     * throws if the directory refuses or cannot be reached.
     */
    private void publish() {
        long next = EpochClock.next(Math.max(ownSeen, epoch));
        byte[][] made = new byte[1][];
        Publication p = directory.publish(memberId, group, lease -> {
            made[0] = MemberEntry.of(memberId, next, lease, group, descriptor).encode(ring);
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
