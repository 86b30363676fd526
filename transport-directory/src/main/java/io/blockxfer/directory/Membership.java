package io.blockxfer.directory;

import io.blockxfer.directory.internal.MembershipCore;
import io.blockxfer.directory.internal.SerialLoop;
import io.blockxfer.directory.internal.Signals;
import io.blockxfer.directory.internal.Ticker;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.TransportConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Binds one {@link DataTransport} to a {@link Directory}: publishes the transport's
 * {@link DataTransport#localDescriptor()} as a {@link MemberEntry} under its member id with a lease,
 * and keeps the transport's peers equal to the directory's compatible, authenticated members.
 *
 * <pre>{@code
 * try (DataTransport transport = Transports.open(config);
 *         Directory directory = ...;                      // etcd, or InMemoryCluster.connect("/kv/prod/")
 *         Membership membership = Membership.builder(transport, directory).keyRing(keys).build()) {
 *     // peers come and go by themselves; transfer to membership.members().keySet()
 * }
 * }</pre>
 *
 * <p><b>Eager, by group, or on demand.</b> By default a membership follows every member of the
 * prefix ({@link Builder#followAll()}): each process holds every other, which suits a deployment of
 * tens of processes. A fleet follows less: {@link Builder#followGroups} follows only the members of
 * some groups (one directory watch per group), and {@link Builder#followNone()} none at all; either
 * way, {@link #resolve} adds one member when it is needed (one read of its key, then a watch of
 * that key alone), at most {@link Builder#maxHeld} at a time, released idle longest first, and
 * {@link #release} drops one. A process then pays for its partners, not for the fleet. The modes
 * mix in one prefix: every process publishes the same entry, and a member of a group
 * ({@link Builder#group}) is found under its own key and under its group's.
 *
 * <p><b>What it does with each entry</b> (on its own thread, in the directory's order): checks it
 * (the key names a member directly under the prefix; the value is at most
 * {@link DirectoryLimits#MAX_VALUE_BYTES}, read no further otherwise; the envelope is well formed
 * and, with a key ring, signed by a key of the ring; the member id inside is the key's; the
 * descriptor inside is well formed and, with a ring, signed; its backend, block length and
 * fingerprint are the transport's; the key is attached to the very lease the entry was published
 * under; its epoch is newer than any seen for the member, also after the member left), then calls
 * {@link DataTransport#addPeerAsync} for a new member or a new epoch, and
 * {@link DataTransport#removePeer} when the member's entry is deleted (a goodbye, or an expired
 * lease) or replaced by a copy off its lease. An entry that fails a check is refused, reported
 * with its {@link Refusal.Reason}, and never reaches the transport; it changes nothing (the member
 * keeps its earlier registration, if it had one), but for a copy of the member's entry off the
 * member's lease ({@link Refusal.Reason#WRONG_LEASE}): a member is live only while its entry sits
 * on its own, live lease, so such a copy removes it as a delete would, for every reader, also for
 * one that starts after the member left. Refusals go to the listeners and JFR one by one, and to
 * the log as the first of a quiet interval plus one summary line per 10 s. A flapping member is coalesced: it changes in the transport at most once per
 * {@linkplain Builder#flapInterval flap interval}, with its latest entry (see {@code MemberTable}
 * in the sources for the exact policy; in short, the first change after a quiet interval is
 * applied at once, later ones when the interval ends, and a delete waits one interval so that a
 * restart is one re-add).
 *
 * <p><b>Its own entry.</b> Published at {@link Builder#build()}, after the snapshot was applied,
 * with an epoch above any found under its member id, on a lease the directory grants first and
 * the entry names. When someone else overwrites or deletes the entry while its lease lives, it is
 * restored: written again under that lease ({@link Publication#restore()}), same epoch and bytes,
 * nothing torn down, at most {@link #MAX_RESTORES_PER_SECOND} times a second
 * ({@link MembershipListener#entryRestored}; the log says so once and then sums up every 10 s).
 * When the lease is lost (it expired while the process was cut off or paused past the TTL, or was
 * revoked), the entry is published again with a new epoch and the listener is told
 * ({@link MembershipListener#leaseLost}, then {@link MembershipListener#published}); a failed
 * publication is retried with back-off, and at once when the watch reconnects. Meanwhile the
 * other members removed this process and tore down their side of its connections, so that
 * publication also re-registers every member held then ({@link DataTransport#addPeerAsync} with
 * the entry it holds: fresh connections; {@link MembershipListener#memberReRegistered}), once per
 * loss; a member removed meanwhile is not re-added. A valid entry of
 * another process under the same member id is reported ({@link Refusal.Reason#MEMBER_ID_IN_USE})
 * and not fought over.
 *
 * <p><b>While the directory is unreachable</b> nothing happens to the transport's peers: transfers
 * among known peers go on. When the watch returns it resumes or resyncs (see
 * {@link DirectoryListener}), so members that left meanwhile are removed, those that joined are
 * added, and nothing is applied twice.
 *
 * <p><b>Close</b> stops watching and says goodbye: it deletes this process's keys while they hold
 * what it last saw there ({@link Publication#deleteIfAt}; over someone else's write, seen or
 * landing just before, it restores the entry first and deletes at the restore's revision), then
 * revokes the lease; the other members remove this one, and no stranger's write leaves a key
 * behind that they would take for a member still there. It leaves the transport open with the
 * peers it added still registered: an operator who closes the membership first to drain (stop
 * being found, finish the transfers in flight) would lose those transfers if the peers went with
 * it; closing the transport removes them, and {@link #members()} read before close names them for
 * a caller who wants them gone sooner.
 *
 * <p><b>Thread safety:</b> thread-safe. The listeners run on the membership's own thread.
 */
public final class Membership implements AutoCloseable {

    /** The default lease TTL: 15 s (see docs/membership.md for how to choose one). */
    public static final Duration DEFAULT_TTL = Duration.ofSeconds(15);
    /** The default flap interval: 1 s. */
    public static final Duration DEFAULT_FLAP_INTERVAL = Duration.ofSeconds(1);
    /** The longest flap interval accepted: one minute. */
    public static final Duration MAX_FLAP_INTERVAL = Duration.ofMinutes(1);
    /** The most restores of this process's entry in a second, however fast someone overwrites it. */
    public static final int MAX_RESTORES_PER_SECOND = MembershipCore.MAX_RESTORES_PER_SECOND;
    /** The default limit of members held through {@link #resolve}: 256. */
    public static final int DEFAULT_MAX_HELD = 256;
    /** The default time a {@link #resolve} waits: 10 s. */
    public static final Duration DEFAULT_RESOLVE_TIMEOUT = Duration.ofSeconds(10);

    private final String memberId;
    private final Directory directory;
    private final SerialLoop loop;
    private final MembershipCore core;
    private final Object closeLock = new Object();
    private volatile boolean closed;

    private Membership(Builder b, String memberId, PeerDescriptor descriptor) {
        this.memberId = memberId;
        this.directory = b.directory;
        this.loop = new SerialLoop("blockxfer-membership-" + memberId, b.ticker);
        List<MembershipListener> listeners = List.copyOf(b.listeners);
        Signals signals = new Signals(memberId, listeners, loop);
        this.core = new MembershipCore(b.transport, b.directory, memberId, b.ttl, b.keyRing, descriptor,
                b.flapInterval, loop, signals, b.following, b.group, b.maxHeld, b.resolveTimeout);
        loop.execute(() -> signals.started(b.directory.prefix()));
        try {
            core.startWatches();
        } catch (RuntimeException e) {
            loop.close();
            throw e;
        }
    }

    /** A builder binding {@code transport} to {@code directory}. */
    public static Builder builder(DataTransport transport, Directory directory) {
        return new Builder(transport, directory);
    }

    /** The member id this process publishes under. Answers after close too. */
    public String memberId() {
        return memberId;
    }

    /**
     * The members registered in the transport now (their registration completed), by member id,
     * with their epochs; this process's own is not among them. A member whose registration is
     * being replaced (a new epoch, or a re-registration after this process's lease was lost) is
     * left out until the new registration is in place: the transport tears the old one down when
     * the new one starts, so a transfer to it would not be submitted meanwhile. A transfer to a
     * member read here a moment before such a replacement began may still meet it: it is then not
     * submitted ({@link DataTransport#NOT_SUBMITTED}), or, submitted, fails once.
     *
     * @throws IllegalStateException if closed
     */
    public Map<String, Long> members() {
        ensureOpen();
        return core.members();
    }

    /**
     * Makes {@code memberId} writable when it is needed, the way an engine connects to the peer a
     * request names: reads that member's entry (one watch of its key: the listing is the read, its
     * events then follow the member), checks it exactly as every entry is checked (key ring,
     * lease, epoch, backend, block length, fingerprint), adds it to the transport, and completes
     * with its epoch once it can be written to. A member held already (followed, or resolved
     * before) completes at once; concurrent calls for one member share one resolution. Once
     * resolved, the member is followed as any member: a new epoch re-adds it, a deleted entry or
     * an expired lease removes it (its transfers in flight fail), until it is
     * {@linkplain #release released}. Nothing about a member that was not resolved (and is not in
     * a followed group) reaches this process.
     *
     * <p>At most {@link Builder#maxHeld} members are held through resolution: past it, the one
     * idle longest is released ({@link MembershipListener#memberReleased}): no transfer submitted
     * to it since it was last sampled (every second, and when the limit is passed), none in flight
     * ({@link DataTransport#traffic}). A member with transfers in flight, or still resolving, is
     * never released; while every member held is busy the set stays above its limit.
     *
     * @return completes with the member's epoch, or fails with a {@link MemberResolutionException}
     *     naming why: no such member, its entry refused (with the {@link Refusal}), not writable
     *     within {@link Builder#resolveTimeout}, the transport's registration failed, the directory
     *     could not be read, released or left meanwhile, or this membership closed
     * @throws IllegalArgumentException if the member id is malformed or this process's own
     * @throws IllegalStateException if closed
     */
    public CompletableFuture<Long> resolve(String memberId) {
        DirectoryLimits.checkMemberId(memberId);
        if (memberId.equals(this.memberId)) {
            throw new IllegalArgumentException("member '" + memberId + "' is this process's own id");
        }
        ensureOpen();
        return core.resolve(memberId);
    }

    /**
     * Releases a member held through {@link #resolve}: stops following it and removes it from the
     * transport (its transfers still in flight fail), unless a followed group holds it; a
     * resolution still under way fails as released. Resolving it again works.
     *
     * @return whether it was held through resolution
     * @throws IllegalArgumentException if the member id is malformed
     * @throws IllegalStateException if closed
     */
    public boolean release(String memberId) {
        DirectoryLimits.checkMemberId(memberId);
        ensureOpen();
        return core.release(memberId);
    }

    /**
     * The epoch of this process's entry as last published.
     *
     * @throws IllegalStateException if closed
     */
    public long epoch() {
        ensureOpen();
        return core.epoch();
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Stops watching, stops the membership's thread, and revokes this process's lease (the
     * goodbye), within the directory's {@link Directory#operationTimeout()} or the lease expires
     * on its own. Leaves the transport and its peers as they are (see the class comment).
     * Idempotent; every other method but {@link #memberId()} and {@link #isClosed()} throws
     * {@link IllegalStateException} afterwards.
     */
    @Override
    public void close() {
        synchronized (closeLock) {
            if (closed) {
                return;
            }
            closed = true;
            core.closeWatches();
            loop.close(directory.operationTimeout().plusSeconds(5));
            core.closeResolutions();
            core.goodbye();
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("membership '" + memberId + "' is closed");
        }
    }

    private void awaitStart() {
        Duration limit = directory.operationTimeout().multipliedBy(2).plusSeconds(10);
        try {
            core.started().get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            close();
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            throw new DirectoryException("membership '" + memberId + "' could not start", cause);
        } catch (TimeoutException e) {
            close();
            throw new DirectoryUnavailableException("membership '" + memberId + "' did not get its snapshot from "
                    + directory + " and publish its entry within " + limit.toSeconds() + " s", e);
        } catch (InterruptedException e) {
            close();
            Thread.currentThread().interrupt();
            throw new DirectoryException("interrupted while membership '" + memberId + "' started", e);
        }
    }

    @Override
    public String toString() {
        return "Membership[" + memberId + " on " + directory + (closed ? ", closed" : "") + "]";
    }

    /**
     * Builds and starts a {@link Membership}.
     *
     * <p><b>Thread safety:</b> not thread-safe.
     */
    public static final class Builder {
        private final DataTransport transport;
        private final Directory directory;
        private @Nullable String memberId;
        private Duration ttl = DEFAULT_TTL;
        private @Nullable DeploymentKeyRing keyRing;
        private Duration flapInterval = DEFAULT_FLAP_INTERVAL;
        private final List<MembershipListener> listeners = new ArrayList<>();
        private Ticker ticker = Ticker.SYSTEM;
        private MembershipCore.Following following = MembershipCore.Following.all();
        private @Nullable String group;
        private int maxHeld = DEFAULT_MAX_HELD;
        private Duration resolveTimeout = DEFAULT_RESOLVE_TIMEOUT;

        private Builder(DataTransport transport, Directory directory) {
            this.transport = Objects.requireNonNull(transport, "transport");
            this.directory = Objects.requireNonNull(directory, "directory");
        }

        /**
         * The member id to publish under; the transport's {@link DataTransport#agentName()} unless
         * set.
         *
         * @throws IllegalArgumentException if it is malformed (see {@link DirectoryLimits})
         */
        public Builder memberId(String id) {
            this.memberId = DirectoryLimits.checkMemberId(id);
            return this;
        }

        /**
         * The TTL of this process's lease: how long after it stops renewing (dies, is cut off or
         * paused) the others remove it; {@link #DEFAULT_TTL} unless set.
         *
         * @throws IllegalArgumentException naming the TTL if it is not a whole number of seconds
         *     from {@link DirectoryLimits#MIN_TTL} to {@link DirectoryLimits#MAX_TTL}
         */
        public Builder ttl(Duration ttl) {
            this.ttl = DirectoryLimits.checkTtl(ttl);
            return this;
        }

        /**
         * The deployment's key ring: signs this process's entry, and refuses every entry (and
         * descriptor inside) not signed by one of its keys. Give it the same ring as the transport
         * ({@link TransportConfig.Builder#keyRing}), whose descriptor must then be signed. Without
         * one, entries are neither signed nor checked (only accidents are caught).
         */
        public Builder keyRing(@Nullable DeploymentKeyRing ring) {
            this.keyRing = ring;
            return this;
        }

        /**
         * How often at most a member may change in the transport; {@link #DEFAULT_FLAP_INTERVAL}
         * unless set, zero to apply every change at once.
         *
         * @throws IllegalArgumentException if negative or above {@link #MAX_FLAP_INTERVAL}
         */
        public Builder flapInterval(Duration interval) {
            Objects.requireNonNull(interval, "flapInterval");
            if (interval.isNegative() || interval.compareTo(MAX_FLAP_INTERVAL) > 0) {
                throw new IllegalArgumentException("flap interval " + interval + " must be from 0 to "
                        + MAX_FLAP_INTERVAL);
            }
            this.flapInterval = interval;
            return this;
        }

        /**
         * This process's group (a role such as {@code prefill} or {@code decode}, or a rack): its
         * entry names it, under the key ring's MAC, and is also written under the group's key
         * ({@link DirectoryScope}), so that a membership that {@linkplain #followGroups follows the
         * group} finds it with one watch. None unless set.
         *
         * @throws IllegalArgumentException if malformed (see {@link DirectoryLimits#checkGroup})
         */
        public Builder group(String group) {
            this.group = DirectoryLimits.checkGroup(group);
            return this;
        }

        /** Follow every member of the prefix eagerly: each is added as it joins. The default. */
        public Builder followAll() {
            this.following = MembershipCore.Following.all();
            return this;
        }

        /**
         * Follow eagerly only the members of {@code groups} (one watch per group; a prefill process
         * follows {@code decode}); other members come only through {@link Membership#resolve}.
         *
         * @throws IllegalArgumentException if there is no group, or one is malformed
         */
        public Builder followGroups(String... groups) {
            if (groups.length == 0) {
                throw new IllegalArgumentException("followGroups needs at least one group; followNone() follows none");
            }
            Set<String> set = new LinkedHashSet<>();
            for (String g : groups) {
                set.add(DirectoryLimits.checkGroup(g));
            }
            this.following = MembershipCore.Following.groups(set);
            return this;
        }

        /**
         * Follow no member eagerly: members come only through {@link Membership#resolve}, and this
         * process watches only its own keys and the members it resolved. For fleets, where each
         * process talks to a few partners.
         */
        public Builder followNone() {
            this.following = MembershipCore.Following.groups(Set.of());
            return this;
        }

        /**
         * The most members held through {@link Membership#resolve} ({@link #DEFAULT_MAX_HELD}
         * unless set); followed members do not count.
         *
         * @throws IllegalArgumentException if not positive
         */
        public Builder maxHeld(int members) {
            if (members <= 0) {
                throw new IllegalArgumentException("maxHeld must be positive: " + members);
            }
            this.maxHeld = members;
            return this;
        }

        /**
         * How long a {@link Membership#resolve} waits for its member to be writable
         * ({@link #DEFAULT_RESOLVE_TIMEOUT} unless set).
         *
         * @throws IllegalArgumentException if not positive or above an hour
         */
        public Builder resolveTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "resolveTimeout");
            if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(Duration.ofHours(1)) > 0) {
                throw new IllegalArgumentException("resolve timeout " + timeout + " must be positive and at most an"
                        + " hour");
            }
            this.resolveTimeout = timeout;
            return this;
        }

        /** Adds a listener; listeners are called in the order they were added. */
        public Builder listener(MembershipListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /** The clock of the membership's timers; for this package's tests. */
        Builder ticker(Ticker t) {
            this.ticker = Objects.requireNonNull(t, "ticker");
            return this;
        }

        /**
         * Starts the membership: watches the directory, applies its snapshot to the transport, and
         * publishes this process's entry. Returns once the entry is published.
         *
         * @throws IllegalArgumentException if the member id (the agent name, when not set) is
         *     malformed, the descriptor too large for an entry, or a key ring is set and the
         *     transport's descriptor is unsigned
         * @throws DirectoryUnavailableException if the directory could not be reached within its
         *     {@link Directory#operationTimeout()} (plus the snapshot's delivery)
         * @throws IllegalStateException if the transport or the directory is closed
         */
        public Membership build() {
            String id = memberId;
            if (id == null) {
                String agent = transport.agentName();
                if (!DirectoryLimits.isValidMemberId(agent)) {
                    throw new IllegalArgumentException("the transport's agent name '" + agent + "' is not a valid"
                            + " member id (1-" + DirectoryLimits.MAX_MEMBER_ID_LENGTH + " chars of [A-Za-z0-9._:@-]);"
                            + " set one with Membership.Builder.memberId");
                }
                id = agent;
            }
            PeerDescriptor descriptor = transport.localDescriptor();
            if (keyRing != null && !descriptor.isSigned()) {
                throw new IllegalArgumentException("a key ring is set, but the transport's descriptor is unsigned:"
                        + " give the transport the same ring (TransportConfig.Builder.keyRing)");
            }
            MemberEntry.of(id, 1, 0, group, descriptor).encode(keyRing); // fails now if it cannot fit
            Membership m = new Membership(this, id, descriptor);
            m.awaitStart();
            return m;
        }
    }
}
