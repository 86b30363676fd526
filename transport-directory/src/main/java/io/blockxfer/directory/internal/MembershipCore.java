package io.blockxfer.directory.internal;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryEntry;
import io.blockxfer.directory.DirectoryEvent;
import io.blockxfer.directory.DirectoryListener;
import io.blockxfer.directory.DirectoryScope;
import io.blockxfer.directory.DirectorySnapshot;
import io.blockxfer.directory.DirectoryWatch;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.Refusal;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A membership's state and what it does with each thing the directory says, all on the
 * membership's {@link SerialLoop}: opens the watches of what it follows and of its own keys, checks
 * each entry ({@link EntryCheck}), decides what the transport should hold ({@link MemberTable}),
 * and hands the rest to one part per job: {@link Registrations} (the transport's peers),
 * {@link OwnEntry} (this process's entry: publications, restores, losses) and {@link Resolutions}
 * (members on demand and the held set).
 *
 * <p>A delete ends a member only for the key it names ({@link EntryKeys}): the member leaves once
 * no key this membership watches holds its entry, so a delete of a key that never held it (another
 * group's key, written by a stranger) changes nothing. An entry refused as
 * {@link Refusal.Reason#WRONG_LEASE} (a copy of a member's entry off the member's lease) ends the
 * member under that key as a delete would: the key no longer holds a live entry of it. Other
 * refusals change nothing for the member.
 *
 * <p><b>Connection.</b> Every watch reports its losses of the directory, the followed scopes', its
 * own keys' and each resolution's alike ({@link Connections}): the listeners hear
 * {@code disconnected} when the first of them breaks (naming its scope) and {@code reconnected}
 * when the last is back, and a publication waiting for its retry is tried at once then.
 *
 * <p><b>What it follows.</b> Every member of the prefix ({@link Following#all()}: one watch of
 * {@link DirectoryScope#members()}), or only the members of some groups (one watch per group) and
 * this process's own keys; and, in every mode, each member asked for by {@link #resolve}.
 *
 * <p><b>Thread safety:</b> state is confined to the loop's thread; {@link #members()},
 * {@link #epoch()} and {@link #started()} may be read, and {@link #resolve} and {@link #release}
 * called, from any thread.
 */
public final class MembershipCore implements Resolutions.Feed {

    /** The most restores of this process's entry in a second, however fast it is overwritten. */
    public static final int MAX_RESTORES_PER_SECOND = OwnEntry.MAX_RESTORES_PER_SECOND;

    private final Directory directory;
    private final String memberId;
    private final EntryCheck check;
    private final MemberTable table;
    private final SerialLoop loop;
    private final Signals signals;
    private final Registrations registrations;
    private final OwnEntry own;
    private final Resolutions resolutions;
    private final CompletableFuture<Void> started = new CompletableFuture<>();
    private final Following following;
    private final @Nullable String group;
    /** Loop only: which keys hold each member's accepted entry. */
    private final EntryKeys keys = new EntryKeys();
    private final List<DirectoryWatch> watches = new ArrayList<>();
    /** Loop only: which of the watches (own, followed and resolutions') are disconnected. */
    private final Connections connections = new Connections();
    private int snapshotsDue;

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
        this.directory = directory;
        this.memberId = memberId;
        this.check = new EntryCheck(directory.prefix(), ring, transport.backendName(), transport.region().blockLength(),
                transport.configFingerprint());
        this.table = new MemberTable(flapInterval.toNanos(), MemberTable.REMEMBERED_LEFT);
        this.loop = loop;
        this.signals = signals;
        this.following = following;
        this.group = group;
        Resolutions.Feed feed = this;
        this.registrations = new Registrations(transport, memberId, table, loop, signals, new Registrations.Observer() {
            @Override
            public void registering(String id) {
                resolutions().registering(id);
            }

            @Override
            public void registered(String id, long epoch) {
                resolutions().registered(id, epoch);
            }

            @Override
            public void registrationFailed(String id, long epoch, Throwable cause) {
                resolutions().registrationFailed(id, epoch, cause);
            }

            @Override
            public void left(String id) {
                resolutions().left(id);
            }
        });
        this.own = new OwnEntry(directory, memberId, group, ttl, ring, descriptor, loop, signals, registrations);
        this.resolutions = new Resolutions(transport, directory, memberId, table, registrations, loop, signals,
                maxHeld, resolveTimeout);
        resolutions.feed(feed);
    }

    private Resolutions resolutions() {
        return resolutions;
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
        String ownGroup = group;
        if (ownGroup != null && !following.groups().contains(ownGroup)) {
            scopes.add(DirectoryScope.groupMember(ownGroup, memberId));
            sources.add(Source.OWN);
        }
        snapshotsDue = scopes.size();
        try {
            for (int i = 0; i < scopes.size(); i++) {
                watches.add(directory.watch(scopes.get(i), listener(sources.get(i), scopes.get(i))));
            }
        } catch (RuntimeException e) {
            closeWatches();
            throw e;
        }
    }

    /** Closes the watches of what this membership follows; for close. */
    public void closeWatches() {
        resolutions.closing();
        for (DirectoryWatch w : watches) {
            w.close();
        }
    }

    /**
     * After the loop has stopped: closes every resolution's watch and fails every resolution still
     * outstanding as {@link io.blockxfer.directory.MemberResolutionException.Reason#CLOSED}.
     */
    public void closeResolutions() {
        resolutions.close();
    }

    /** Completes once the snapshot was applied and the first publication succeeded, or with why it failed. */
    public CompletableFuture<Void> started() {
        return started;
    }

    /** The members registered now, with their epochs. */
    public Map<String, Long> members() {
        return registrations.members();
    }

    /** The epoch of this process's current entry; 0 before the first publication. */
    public long epoch() {
        return own.epoch();
    }

    /** The publication of this process's entry, if any. */
    public @Nullable Publication publication() {
        return own.publication();
    }

    /**
     * After the loop stopped: the goodbye. Deletes this process's keys while they hold what it last
     * saw there, restoring the entry first over someone else's write, then revokes the lease, so
     * that every reader sees the member go (see {@link OwnEntry#goodbye}).
     */
    public void goodbye() {
        own.goodbye(check);
    }

    /** Resolves {@code id} (see {@link Resolutions#resolve}). Any thread. */
    public CompletableFuture<Long> resolve(String id) {
        return resolutions.resolve(id);
    }

    /** Releases {@code id} if it is held through resolution; any thread; waits for the loop. */
    public boolean release(String id) {
        return resolutions.release(id, directory.operationTimeout().plusSeconds(5));
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
     * A listener of one of the membership's own watches: it hands everything to the loop, its
     * disconnects and reconnects included ({@link #connections}).
     */
    private DirectoryListener listener(Source source, DirectoryScope scope) {
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
                loop.execute(() -> watchDisconnected(this, scope, reason));
            }

            @Override
            public void reconnected(long revision, boolean resync) {
                loop.execute(() -> watchReconnected(this, revision, resync));
            }

            @Override
            public String toString() {
                return "membership '" + memberId + "'";
            }
        };
    }

    // ------------------------------------------------------------------ the directory's news

    private void onSnapshot(DirectorySnapshot snapshot, Source source) {
        for (DirectoryEntry e : snapshot.entries()) {
            onPut(e.key(), e.value(), e.revision(), e.lease(), source);
        }
        if (--snapshotsDue > 0) {
            return; // the first publication waits for every watch's snapshot
        }
        own.snapshotSeen();
        if (own.publication() == null && !started.isDone()) {
            try {
                own.publish();
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
            own.deleted(event.key(), event.revision());
            return;
        }
        if (keys.gone(id, event.key())) {
            registrations.carry(table.delete(id, loop.ticker().nanos()));
        }
    }

    @Override
    public void watchDisconnected(Object watch, DirectoryScope scope, String reason) {
        if (connections.lost(watch)) {
            signals.disconnected("watch of " + scope + ": " + reason);
        }
    }

    @Override
    public void watchReconnected(Object watch, long revision, boolean resync) {
        if (connections.back(watch, resync)) {
            signals.reconnected(revision, connections.resynced());
            own.reconnected();
        }
    }

    @Override
    public void watchClosed(Object watch) {
        connections.closed(watch);
    }

    @Override
    public @Nullable Refusal put(DirectoryEntry entry) {
        return onPut(entry.key(), entry.value(), entry.revision(), entry.lease(), Source.RESOLVED);
    }

    @Override
    public void changed(DirectoryEvent event) {
        onChanged(event, Source.RESOLVED);
    }

    @Override
    public boolean followed(String id) {
        return keys.followed(id);
    }

    @Override
    public boolean unresolve(String id) {
        return keys.unresolve(id);
    }

    /** Handles a put; returns its refusal, or null when the entry was accepted (or is this process's). */
    private @Nullable Refusal onPut(String key, byte[] value, long revision, long lease, Source source) {
        EntryCheck.Result result = check.check(key, value, revision, lease);
        if (result instanceof EntryCheck.Refused refused) {
            Refusal r = refused.refusal();
            boolean ownKey = r.memberId().equals(memberId);
            signals.refused(r, !ownKey);
            if (ownKey) {
                own.refused(r, key, revision);
            } else if (r.reason() == Refusal.Reason.WRONG_LEASE && keys.gone(r.memberId(), key)) {
                // the key no longer holds a live entry of the member, and no other key does
                registrations.carry(table.delete(r.memberId(), loop.ticker().nanos()));
            }
            return r;
        }
        Accepted entry = ((EntryCheck.Ok) result).entry();
        if (entry.memberId().equals(memberId)) {
            own.put(entry, key, revision);
            return null;
        }
        MemberTable.Step step = table.put(entry, loop.ticker().nanos());
        if (step instanceof MemberTable.Stale stale) {
            Refusal r = new Refusal(EntryCheck.printable(key), entry.memberId(), Refusal.Reason.STALE_EPOCH,
                    stale.message(), revision, entry.epoch());
            signals.refused(r);
            return r;
        }
        keys.held(entry.memberId(), key, source == Source.FOLLOWED);
        if (source == Source.RESOLVED) {
            resolutions.present(entry.memberId());
        }
        registrations.carry(step);
        return null;
    }
}
