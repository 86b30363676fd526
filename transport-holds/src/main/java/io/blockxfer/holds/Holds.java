package io.blockxfer.holds;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.Notification;
import io.blockxfer.transport.NotificationHandler;
import io.blockxfer.transport.ProviderInfo;
import io.blockxfer.transport.Transports;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Blocks held for a peer, over one transport's notifications. The same object serves both roles:
 * <ul>
 *   <li><b>Owner.</b> {@link #create} lends blocks of this region to a registered peer for a TTL
 *       and returns a {@link Hold}, whose {@link HoldGrant} goes to the peer over the owner's own
 *       control plane or as a notification ({@link Hold#sendGrant}). Each renewal from the peer
 *       restarts the TTL; the hold ends exactly once, reported by {@link #pollEnded} with its blocks:
 *       released by the peer after its last transfer, expired (no renewal within the TTL: the peer
 *       died, froze or was cut off), cancelled by the owner, its peer removed from the transport, or
 *       the owner closed. Only then may the owner reuse the blocks.</li>
 *   <li><b>Holder.</b> {@link #accept} (or {@link #pollLeases}, for grants that came as
 *       notifications) gives a {@link Lease}: this object renews it with the owner while it is open,
 *       reads or writes the blocks through it, and releases it with or after the last transfer. A
 *       transfer the lease did not cover to its end, by the times the owner confirmed, fails at the
 *       holder: a holder never takes reused blocks for its own.</li>
 * </ul>
 * Pull (the owner computed the blocks, the peer reads them) and push (the owner is a receiver that
 * keeps blocks allocated for a sender, which writes them) are the same protocol.
 *
 * <p><b>Feeding it.</b> Hold messages are notifications whose payload starts with
 * {@code 'B' 'X' 'H' 1} ({@link HoldMessage}). Whoever takes the transport's notifications hands
 * each to {@link #offer}, which consumes the hold messages and returns false for the rest
 * ({@link #handler(NotificationHandler)} wraps a handler of one's own), or lets this object take
 * them itself ({@link Builder#pumpNotifications}). Time moves by {@link #tick()}: its own thread calls
 * it every {@link Builder#tickInterval} unless ticks are manual.
 *
 * <p><b>Clocks.</b> Each side measures only its own durations on its own monotonic clock: the owner
 * from its receipt of a renewal, the holder from its sending of it. A renewal reaches the owner
 * after it left the holder, so the holder's bound is never later than the owner's (less a
 * thousandth for clocks running at different rates): no wall clocks, no clock compared across
 * hosts.
 *
 * <p><b>Thread safety:</b> thread-safe. {@link #close()} is idempotent; afterwards creating and
 * accepting throw {@link IllegalStateException}, while {@link #pollEnded} still reports the ends
 * that the close decided.
 */
public final class Holds implements AutoCloseable {

    /** The shortest TTL a hold takes. */
    public static final Duration MIN_TTL = Duration.ofMillis(100);
    /** The longest TTL a hold takes. */
    public static final Duration MAX_TTL = Duration.ofHours(1);
    /** How often a {@link Holds}'s own thread ticks unless told otherwise. */
    public static final Duration DEFAULT_TICK = Duration.ofMillis(50);
    /** How many renewals a holder sends per TTL unless told otherwise: one lost renewal in a row costs nothing, two do not end the lease. */
    public static final int DEFAULT_RENEWALS_PER_TTL = 4;

    private final Settings settings;
    private final Messenger messenger;
    private final Signals signals;
    private final Mailbox<HoldEnd> ends = new Mailbox<>();
    private final Mailbox<Lease> granted = new Mailbox<>();
    private final OwnerSide owner;
    private final HolderSide holder;
    private final Ticker ticker;
    private final java.util.concurrent.atomic.LongAdder messagesRefused = new java.util.concurrent.atomic.LongAdder();
    private volatile boolean closed;

    private Holds(Builder b) {
        DataTransport t = b.transport;
        boolean keyed = t.localDescriptor().isSigned();
        this.settings = new Settings(t, t.agentName(), t.region().numBlocks(), t.region().blockLength(), b.clock,
                b.manualTicks ? 0 : b.tick.toNanos(), b.renewalsPerTtl, b.endOnPeerRemoval,
                b.acceptUnauthenticated == null ? keyed : !b.acceptUnauthenticated);
        this.messenger = new Messenger(t);
        this.signals = new Signals(t.agentName(), b.observer);
        this.owner = new OwnerSide(settings, messenger, signals, ends);
        this.holder = new HolderSide(settings, messenger, signals, granted);
        this.ticker = new Ticker(this, t.agentName(), settings.tickNanos(), b.pump);
    }

    /** A builder of holds over {@code transport}, which must carry notifications. */
    public static Builder builder(DataTransport transport) {
        return new Builder(transport);
    }

    /** The transport the holds travel over. */
    public DataTransport transport() {
        return settings.transport();
    }

    static void checkTtl(Duration ttl) {
        if (ttl.compareTo(MIN_TTL) < 0 || ttl.compareTo(MAX_TTL) > 0) {
            throw new IllegalArgumentException("a hold's TTL must be between " + MIN_TTL.toMillis() + " ms and "
                    + MAX_TTL + ", not " + ttl);
        }
    }

    /**
     * Creates a hold of {@code blocks} of this region for {@code peerId}, with no limit on how long
     * renewals keep it.
     *
     * @see #create(String, int[], Duration, Duration)
     */
    public Hold create(String peerId, int[] blocks, Duration ttl) {
        return create(peerId, blocks, ttl, Duration.ZERO);
    }

    /**
     * Creates a hold of {@code blocks} of this region for {@code peerId}: it lives {@code ttl} from
     * now, and each renewal from the peer restarts it, until the peer releases it or
     * {@code maxLifetime} from now has passed.
     *
     * @param peerId a peer registered with the transport (hold messages reach it as notifications)
     * @param blocks the held blocks, each in the region, none twice; copied
     * @param ttl between {@link #MIN_TTL} and {@link #MAX_TTL}, and at least eight ticks
     * @param maxLifetime {@link Duration#ZERO} for no limit, or at least {@code ttl}: renewals never
     *     take the hold past it
     * @throws IllegalArgumentException naming the problem: the peer is not registered, a block is out
     *     of the region or repeated, none are given, the TTL or the limit is out of range; nothing is
     *     created
     * @throws IllegalStateException if closed
     */
    public Hold create(String peerId, int[] blocks, Duration ttl, Duration maxLifetime) {
        Objects.requireNonNull(peerId, "peerId");
        Objects.requireNonNull(blocks, "blocks");
        checkTtl(Objects.requireNonNull(ttl, "ttl"));
        Objects.requireNonNull(maxLifetime, "maxLifetime");
        if (settings.tickNanos() > 0 && ttl.toNanos() < 8 * settings.tickNanos()) {
            throw new IllegalArgumentException("a TTL of " + ttl.toMillis() + " ms is under eight ticks of "
                    + settings.tickNanos() / 1_000_000 + " ms: renewals could not keep it");
        }
        requireOpen();
        return owner.create(peerId, blocks, ttl, maxLifetime);
    }

    /** The live hold of this owner with id {@code holdId}, if there is one. */
    public Optional<Hold> hold(long holdId) {
        return Optional.ofNullable(owner.find(holdId));
    }

    /**
     * Hands each hold that ended since the last call to {@code handler}, once, in the order they
     * ended; never blocks. Works after {@link #close()} too.
     *
     * @return how many ends were reported
     */
    public int pollEnded(Consumer<? super HoldEnd> handler) {
        return ends.poll(Objects.requireNonNull(handler, "handler"));
    }

    /**
     * As {@link #pollEnded(Consumer)}, waiting up to {@code timeout} (without spinning) for at least
     * one end; returns 0 at once when closed with nothing left.
     *
     * @throws IllegalArgumentException if the limit is negative or over {@link DataTransport#MAX_WAIT}
     * @throws InterruptedException if interrupted; nothing is consumed then
     */
    public int pollEnded(Consumer<? super HoldEnd> handler, long timeout, TimeUnit unit) throws InterruptedException {
        return ends.poll(Objects.requireNonNull(handler, "handler"), timeout, unit);
    }

    /**
     * Ends every hold of {@code peerId} now, {@link HoldEnd.Reason#PEER_REMOVED}: for a caller that
     * learnt the peer is gone before the transport removed it, or that it came back as a new
     * process (a membership's new epoch). Holds end this way by themselves within a tick of the
     * transport removing the peer, unless {@link Builder#endOnPeerRemoval} says otherwise.
     *
     * @return how many holds ended
     */
    public int peerRemoved(String peerId) {
        Objects.requireNonNull(peerId, "peerId");
        return owner.endPeerNow(peerId);
    }

    /**
     * Accepts a grant from {@code ownerPeerId} as a holder: the lease's first renewal goes out at
     * once, and renewals follow while it is open.
     *
     * @throws IllegalArgumentException if {@code ownerPeerId} is not a registered peer of the
     *     transport, or the hold was accepted already
     * @throws IllegalStateException if closed
     */
    public Lease accept(String ownerPeerId, HoldGrant grant) {
        Objects.requireNonNull(ownerPeerId, "ownerPeerId");
        Objects.requireNonNull(grant, "grant");
        requireOpen();
        return holder.accept(ownerPeerId, grant);
    }

    /**
     * Hands each lease granted to this process by notification ({@link Hold#sendGrant}) since the
     * last call to {@code handler}, once; each was accepted on arrival and is being renewed.
     *
     * @return how many leases were handed over
     */
    public int pollLeases(Consumer<? super Lease> handler) {
        return granted.poll(Objects.requireNonNull(handler, "handler"));
    }

    /** As {@link #pollLeases(Consumer)}, waiting up to {@code timeout} for at least one. */
    public int pollLeases(Consumer<? super Lease> handler, long timeout, TimeUnit unit) throws InterruptedException {
        return granted.poll(Objects.requireNonNull(handler, "handler"), timeout, unit);
    }

    /**
     * Takes {@code notification} if it is a hold message: acts on it and returns true (also for one
     * it refuses: malformed, or unauthenticated where the transport has a key ring, counted in
     * {@link HoldStats#messagesRefused()}, or any after {@link #close()}). Returns false for every
     * other notification, which stays the caller's.
     */
    public boolean offer(Notification notification) {
        byte[] payload = notification.payload();
        if (!HoldMessage.isHoldMessage(payload)) {
            return false;
        }
        if (closed) {
            return true;
        }
        String sender = notification.sender();
        if (settings.requireAuthenticated() && !notification.authenticated()) {
            refuse(sender, "UNAUTHENTICATED");
            return true;
        }
        HoldMessage m;
        try {
            m = HoldMessage.decode(payload);
        } catch (IllegalArgumentException malformed) {
            refuse(sender, "MALFORMED");
            return true;
        }
        switch (m.type()) {
            case GRANT -> holder.onGrant(sender, m.grant());
            case RENEW -> owner.onRenew(sender, m);
            case RENEWED -> holder.onRenewed(sender, m);
            case RELEASE -> owner.onRelease(sender, m);
            case ENDED -> holder.onEnded(sender, m);
        }
        return true;
    }

    private void refuse(String sender, String why) {
        messagesRefused.increment();
        signals.messageRefused(sender, why, 0);
    }

    /**
     * A handler for {@link DataTransport#pollNotifications} that offers each notification here
     * first and passes the others to {@code others}.
     */
    public NotificationHandler handler(NotificationHandler others) {
        Objects.requireNonNull(others, "others");
        return n -> {
            if (!offer(n)) {
                others.onNotification(n);
            }
        };
    }

    /**
     * Does what is due by the clock: ends the holds whose deadline passed and those of peers the
     * transport removed; sends the renewals due and lets lapse the leases whose confirmed time ran
     * out. This object's own thread calls it every tick; with {@link Builder#manualTicks()} the
     * caller does. Does nothing after {@link #close()}.
     */
    public void tick() {
        if (closed) {
            return;
        }
        owner.tick();
        holder.tick();
    }

    /** The counts so far. Cheap; answers after {@link #close()} too. */
    public HoldStats stats() {
        long[] o = owner.counts();
        long[] h = holder.counts();
        return new HoldStats(o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7], o[8], o[9], o[10], o[11],
                messagesRefused.sum(), h[0], h[1], h[2], h[3], h[4], h[5], h[6], messenger.failures.sum());
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("the holds over '" + settings.agent() + "' are closed");
        }
    }

    /**
     * Ends every live hold {@link HoldEnd.Reason#CLOSED} (each once, reported by {@link #pollEnded};
     * holders are told), stops every lease {@link Lease.EndReason#CLOSED} (owners are told once the
     * transfers in flight ended), and stops the own threads. The blocks of the ended holds are the
     * owner's at once, so close the holds when their blocks' holders are done or gone, or when the
     * transport closes too. The transport is not closed. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        ticker.close();
        owner.closeAll();
        holder.closeAll();
        ends.close();
        granted.close();
    }

    @Override
    public String toString() {
        return "Holds[" + settings.agent() + (closed ? ", closed" : "") + "]";
    }

    /**
     * Configures {@link Holds}.
     *
     * <p><b>Thread safety:</b> not thread-safe; use from one thread.
     */
    public static final class Builder {
        private final DataTransport transport;
        private HoldClock clock = HoldClock.system();
        private Duration tick = DEFAULT_TICK;
        private boolean manualTicks;
        private HoldObserver observer = HoldObserver.NONE;
        private int renewalsPerTtl = DEFAULT_RENEWALS_PER_TTL;
        private boolean endOnPeerRemoval = true;
        private @Nullable Boolean acceptUnauthenticated;
        private @Nullable NotificationHandler pump;

        private Builder(DataTransport transport) {
            this.transport = Objects.requireNonNull(transport, "transport");
        }

        /** The clock TTLs and renewals are measured with; {@link HoldClock#system()} by default. */
        public Builder clock(HoldClock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * How often the holds' own thread ticks ({@link Holds#tick()}); {@link #DEFAULT_TICK} by
         * default. A hold ends at most a tick after its deadline, or after its peer's removal.
         *
         * @throws IllegalArgumentException if not between 1 ms and 1 s
         */
        public Builder tickInterval(Duration interval) {
            if (interval.compareTo(Duration.ofMillis(1)) < 0 || interval.compareTo(Duration.ofSeconds(1)) > 0) {
                throw new IllegalArgumentException("a tick interval between 1 ms and 1 s, not " + interval);
            }
            this.tick = interval;
            this.manualTicks = false;
            return this;
        }

        /** No own thread: the caller moves time with {@link Holds#tick()} (tests, with a {@link ManualHoldClock}). */
        public Builder manualTicks() {
            this.manualTicks = true;
            return this;
        }

        /** What observes the holds for metrics; {@link HoldObserver#NONE} by default. */
        public Builder observer(HoldObserver observer) {
            this.observer = Objects.requireNonNull(observer, "observer");
            return this;
        }

        /**
         * How many renewals a holder sends per TTL ({@link #DEFAULT_RENEWALS_PER_TTL} by default): a
         * lease survives {@code n - 2} lost renewals in a row.
         *
         * @throws IllegalArgumentException if not between 2 and 20
         */
        public Builder renewalsPerTtl(int n) {
            if (n < 2 || n > 20) {
                throw new IllegalArgumentException("renewals per TTL between 2 and 20, not " + n);
            }
            this.renewalsPerTtl = n;
            return this;
        }

        /**
         * Whether the holds of a peer the transport no longer has end at once
         * ({@link HoldEnd.Reason#PEER_REMOVED}; the default) or run out their TTL. At once frees the
         * blocks of a dead peer without waiting; but a peer removed while it still runs (its
         * membership lease lost while its data path works) may then read blocks the owner already
         * reused, until its own confirmed time runs out. Keep the TTL within half the membership's
         * TTL to make that window empty for a peer that froze or died, or say false here.
         */
        public Builder endOnPeerRemoval(boolean atOnce) {
            this.endOnPeerRemoval = atOnce;
            return this;
        }

        /**
         * Whether hold messages the transport did not authenticate are taken. By default they are
         * where the transport has no key ring and refused where it has one; say true for a keyed
         * deployment with unsigned peers (plain NIXL agents) that speak the hold protocol.
         */
        public Builder acceptUnauthenticated(boolean accept) {
            this.acceptUnauthenticated = accept;
            return this;
        }

        /**
         * Takes the transport's notifications on a thread of the holds' own, offering each to the
         * holds and passing the others to {@code others}, for a process that has no notification
         * loop of its own. Without it, the caller feeds {@link Holds#offer}.
         */
        public Builder pumpNotifications(NotificationHandler others) {
            this.pump = Objects.requireNonNull(others, "others");
            return this;
        }

        /**
         * Builds the holds and starts their threads.
         *
         * @throws IllegalArgumentException if the transport's backend does not carry notifications
         * @throws IllegalStateException if the transport is closed
         */
        public Holds build() {
            Optional<ProviderInfo> provider = Transports.providers().stream()
                    .filter(p -> p.name().equals(transport.backendName())).findFirst();
            if (provider.isPresent() && !provider.get().capabilities().contains(Capability.NOTIFICATIONS)) {
                throw new IllegalArgumentException("the " + transport.backendName() + " backend carries no"
                        + " notifications (Capability.NOTIFICATIONS), which holds travel in");
            }
            Holds h = new Holds(this);
            h.signals.opened();
            h.ticker.start();
            return h;
        }
    }
}
