package io.blockxfer.transport.spi;

import io.blockxfer.transport.BlockRegion;
import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.CompletionHandler;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.Notification;
import io.blockxfer.transport.NotificationHandler;
import io.blockxfer.transport.NotificationStats;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PeerTraffic;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.TransferFuture;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.internal.AsyncCompletions;
import io.blockxfer.transport.internal.BlockingPolls;
import io.blockxfer.transport.internal.Canceller;
import io.blockxfer.transport.internal.CompletionThread;
import io.blockxfer.transport.internal.CompletionTracker;
import io.blockxfer.transport.internal.CompletionWaiters;
import io.blockxfer.transport.internal.FutureJoins;
import io.blockxfer.transport.internal.GuardedEngine;
import io.blockxfer.transport.internal.OrphanKeeper;
import io.blockxfer.transport.internal.PeerAdmission;
import io.blockxfer.transport.internal.PeerHealth;
import io.blockxfer.transport.internal.PeerRegistrar;
import io.blockxfer.transport.internal.PeerTable;
import io.blockxfer.transport.internal.Telemetry;
import io.blockxfer.transport.internal.Teardown;
import io.blockxfer.transport.internal.TransferSubmitter;
import io.blockxfer.transport.internal.TransportState;
import io.blockxfer.transport.internal.notify.NotificationFrames;
import io.blockxfer.transport.internal.notify.NotificationInbox;
import io.blockxfer.transport.internal.notify.NotificationPublisher;
import io.blockxfer.transport.internal.notify.NotificationReceiver;
import io.blockxfer.transport.internal.notify.NotificationSender;
import io.blockxfer.transport.internal.notify.NotificationWaits;
import io.blockxfer.transport.internal.notify.ReplayGuard;
import io.blockxfer.transport.internal.notify.SenderIndex;
import io.blockxfer.transport.internal.notify.TransportNotifications;
import java.lang.System.Logger.Level;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The whole {@link DataTransport} contract over a backend's {@link TransferEngine}: argument
 * checks, transfer ids, per-peer in-flight tables with scoped polls, registration generations on
 * one registration thread, transfer deadlines, both cancel modes, and teardown in a safe order.
 * Backends return one of these from {@link TransportProvider#open}; they implement only the
 * native moves.
 *
 * <p>How the hardened contract is kept:
 * <ul>
 *   <li>Every submitted id lives in exactly one place: its peer's in-flight table, its peer's list
 *       of owed failures, or nowhere (reported, cancelled, or ended by close).</li>
 *   <li>A native handle leaves the in-flight table only terminal (then it is released) or into
 *       the orphan set, whose handles are released only once the engine reports them terminal.
 *       A peer's native state is disconnected only after its last handle is released.</li>
 *   <li>Engine exceptions during submit, status or release become failed reports and are logged
 *       once per change of a peer's state, never once per transfer.</li>
 * </ul>
 *
 * <p>With a {@link TransportConfig#keyRing() key ring} the transport hands out its
 * {@link #localDescriptor()} signed, and registers only peers whose descriptor the ring
 * authenticates, checked before the engine is called.
 *
 * <p>Waits and futures: a wait polls, spins briefly, then parks until the engine's
 * {@link CompletionSignal} (see {@link TransferEngine#bindCompletionSignal}); for an engine that
 * does not fire it, one completion thread per transport polls the engine with an adaptive back-off
 * while callers wait or futures are pending. Futures are completed after the transport's locks are
 * released, by the thread that finds their transfer ended or by that completion thread; a thread
 * blocked on a future ({@code get}, {@code join}) drives and waits as a wait does, and completes
 * its future itself.
 *
 * <p>Notifications: the transport frames, signs (with a key ring) and counts what it sends, and
 * the engine carries the frame with its transfer or on its own
 * ({@link TransferEngine#submit(long, Object, TransferOp, int[], int[], OutboundNotification)},
 * {@link TransferEngine#sendNotification}); what the engine receives goes to the transport's
 * {@link NotificationSink}, which checks it (format, addressee, MAC, replay), names its sender by
 * the peer id of its registration, and queues it, bounded, for polls, waits and the subscriber.
 * Sending needs {@link Capability#NOTIFICATIONS} and an engine that binds the sink.
 *
 * <p>This class is the entry point; the jobs live in parts of their own (registration,
 * submission, completion tracking with deadlines, waits, futures, the completion thread,
 * cancellation, orphans, teardown) in a package that is not exported.
 *
 * <p>For test kits, {@link #withEngineDecorator} opens transports whose engine passes through a
 * decorator first (the conformance kit injects its initiator faults so); nothing else can change
 * the engine a transport was built with.
 *
 * <p><b>Thread safety:</b> thread-safe, as {@link DataTransport} requires. Each peer has its own
 * lock, so sessions of different peers do not contend; submits and polls allocate nothing in the
 * steady state.
 */
public final class ManagedTransport implements DataTransport {

    /** The decorator of {@link #withEngineDecorator}, bound only while its {@code open} runs. */
    private static final ScopedValue<UnaryOperator<TransferEngine>> ENGINE_DECORATOR = ScopedValue.newInstance();

    private final TransferEngine engine;
    private final String backend;
    private final String agentName;
    private final BlockRegion region;
    private final String fingerprint;
    private final Set<Capability> capabilities;
    private final PeerDescriptor localDescriptor;
    private final TransportState state;
    private final PeerRegistrar registrar;
    private final TransferSubmitter submitter;
    private final CompletionTracker completions;
    private final Canceller canceller;
    private final BlockingPolls waits;
    private final TransportNotifications notifications;
    private final Teardown teardown;

    /**
     * A transport over {@code engine}, which it owns from now on (closing the transport closes
     * the engine).
     *
     * @param capabilities what the backend supports; {@link Capability#READ} gates reads
     */
    public ManagedTransport(TransferEngine engine, TransportConfig config, Set<Capability> capabilities) {
        this.engine = decorated(Objects.requireNonNull(engine, "engine"));
        Objects.requireNonNull(config, "config");
        this.backend = this.engine.backendName();
        this.agentName = config.agentName();
        this.region = this.engine.region();
        this.fingerprint = config.fingerprint();
        this.capabilities = capabilities.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(capabilities));
        PeerDescriptor local = PeerDescriptor.of(backend, fingerprint, region, this.engine.agentMetadata());
        this.localDescriptor = config.keyRing().map(local::signedWith).orElse(local);
        String label = backend + " transport '" + agentName + "'";
        Telemetry telemetry = new Telemetry(backend, agentName, config.observer());
        GuardedEngine guarded = new GuardedEngine(this.engine, label);
        PeerTable peers = new PeerTable();
        OrphanKeeper orphans = new OrphanKeeper(guarded);
        PeerHealth health = new PeerHealth(telemetry, label);
        this.state = new TransportState(label);
        CompletionWaiters waiters = new CompletionWaiters(guarded);
        AsyncCompletions async = new AsyncCompletions(label);
        long transferTimeout = config.transferTimeout().toNanos();
        // a waiter re-polls at least this often, so that the deadline of a transfer submitted after
        // it parked is met even when nothing signals; transfers in flight when it parked shorten it
        long recheck = Math.max(transferTimeout / 4, TimeUnit.MILLISECONDS.toNanos(1));
        this.completions = new CompletionTracker(peers, state, guarded, orphans, async, waiters, health, telemetry,
                region.blockLength(), transferTimeout, label);
        boolean signals = bindSignal(this.engine, waiters, label);
        CompletionThread completionThread = new CompletionThread(completions, waiters, async, signals, recheck,
                "blockxfer-" + backend + "-completions-" + agentName);
        if (!signals) {
            waiters.onFirstCaller(completionThread::wake);
        }
        this.waits = new BlockingPolls(completions, waiters, state, recheck, label);
        FutureJoins joins = new FutureJoins(completions, waiters, async, completionThread, recheck, label);
        this.canceller = new Canceller(peers, state, guarded, orphans, async, telemetry);
        this.notifications = notifications(config, guarded, peers, health, telemetry, waiters, label);
        this.submitter = new TransferSubmitter(peers, state, this.engine, health, telemetry, async,
                id -> cancel(new long[] {id}, CancelMode.IMMEDIATE), joins::submitted, notifications,
                region.numBlocks(), region.blockLength(), joins);
        this.registrar = new PeerRegistrar(peers, state, guarded, completions, orphans, health, telemetry,
                new PeerAdmission(backend, region.blockLength(), fingerprint, config.keyRing().orElse(null),
                        config.acceptUnsignedPeers()),
                notifications.senders(), backend, agentName, label);
        this.teardown = new Teardown(peers, state, registrar, guarded, orphans, waiters, async, completionThread,
                config.closeTimeout().toNanos(), label);
    }

    /**
     * Builds the notifications of this transport and hands the engine its sink; sending is on when
     * the provider declares {@link Capability#NOTIFICATIONS} and the engine binds the sink.
     */
    private TransportNotifications notifications(TransportConfig config, GuardedEngine guarded, PeerTable peers,
            PeerHealth health, Telemetry telemetry, CompletionWaiters waiters, String label) {
        long identity = NotificationFrames.identityOf(localDescriptor);
        SenderIndex senders = new SenderIndex();
        NotificationInbox inbox = new NotificationInbox(config.notificationQueueCapacity(), waiters::signal);
        DeploymentKeyRing ring = config.keyRing().orElse(null);
        NotificationReceiver receiver = new NotificationReceiver(identity, ring, config.acceptUnsignedPeers(),
                senders, inbox, new ReplayGuard(System::currentTimeMillis), telemetry, label);
        boolean bound;
        try {
            bound = engine.bindNotificationSink(receiver);
        } catch (RuntimeException | LinkageError e) {
            System.getLogger(ManagedTransport.class.getName()).log(Level.WARNING, () -> label
                    + ": the engine refused its notification sink; it cannot send notifications: " + e);
            bound = false;
        }
        if (capabilities.contains(Capability.NOTIFICATIONS) && !bound) {
            System.getLogger(ManagedTransport.class.getName()).log(Level.WARNING, () -> label
                    + ": the provider declares NOTIFICATIONS but its engine does not bind a notification sink;"
                    + " notifications are off");
        }
        NotificationWaits notificationWaits = new NotificationWaits(inbox, guarded, waiters, state,
                TimeUnit.MILLISECONDS.toNanos(100), label);
        return new TransportNotifications(bound && capabilities.contains(Capability.NOTIFICATIONS), backend, peers,
                state, guarded, health, telemetry,
                new NotificationSender(identity, agentName, ring, System::currentTimeMillis), senders, inbox,
                notificationWaits, new NotificationPublisher(inbox, notificationWaits, label));
    }

    /** Hands the engine its completion signal; whether it fires it (an engine that throws does not). */
    private static boolean bindSignal(TransferEngine engine, CompletionSignal signal, String label) {
        try {
            return engine.bindCompletionSignal(signal);
        } catch (RuntimeException | LinkageError e) {
            System.getLogger(ManagedTransport.class.getName()).log(Level.WARNING, () -> label
                    + ": the engine refused its completion signal; it is polled while callers wait: " + e);
            return false;
        }
    }

    /**
     * For test kits only: runs {@code open} (typically {@code provider.open(config)}) so that every
     * {@code ManagedTransport} built on this thread while it runs hands its engine to
     * {@code decorator} and uses the engine that returns instead. Transports built anywhere else,
     * on other threads or after {@code open} returned, are untouched, so production code cannot
     * meet a decorated engine by accident. The decorator must forward every call it does not
     * change to the engine it is given (including {@link TransferEngine#feature}); the conformance
     * kit's {@code InJvmHarness.withEngineFaults()} injects initiator faults this way into every
     * backend whose provider builds its {@code ManagedTransport} on the thread that calls
     * {@link TransportProvider#open}. Calls nest: inside another call's {@code open}, the engine
     * passes through this call's decorator first and the enclosing one's around it (the kit's
     * rule T1 counts a poll's work so, around a harness that injects faults).
     *
     * @param decorator given the backend's engine, returns the engine the transport uses; it
     *     owns the engine from then on (closing it must close the engine)
     * @return what {@code open} returned
     */
    public static <T> T withEngineDecorator(UnaryOperator<TransferEngine> decorator, Supplier<T> open) {
        Objects.requireNonNull(decorator, "decorator");
        Objects.requireNonNull(open, "open");
        UnaryOperator<TransferEngine> bound = decorator;
        if (ENGINE_DECORATOR.isBound()) {
            UnaryOperator<TransferEngine> enclosing = ENGINE_DECORATOR.get();
            bound = engine -> enclosing.apply(Objects.requireNonNull(decorator.apply(engine),
                    "the engine decorator of ManagedTransport.withEngineDecorator returned null"));
        }
        return ScopedValue.where(ENGINE_DECORATOR, bound).call(open::get);
    }

    private static TransferEngine decorated(TransferEngine engine) {
        if (!ENGINE_DECORATOR.isBound()) {
            return engine;
        }
        TransferEngine decorated;
        try {
            decorated = ENGINE_DECORATOR.get().apply(engine);
        } catch (RuntimeException | Error e) {
            engine.close(false);
            throw e;
        }
        if (decorated == null) {
            engine.close(false);
            throw new IllegalStateException("the engine decorator of ManagedTransport.withEngineDecorator returned"
                    + " null");
        }
        return decorated;
    }

    @Override
    public String backendName() {
        return backend;
    }

    @Override
    public String agentName() {
        return agentName;
    }

    @Override
    public BlockRegion region() {
        state.ensureOpen();
        return region;
    }

    @Override
    public String configFingerprint() {
        return fingerprint;
    }

    @Override
    public byte[] agentMetadata() {
        state.ensureOpen();
        return localDescriptor.metadata();
    }

    @Override
    public PeerDescriptor localDescriptor() {
        state.ensureOpen();
        return localDescriptor;
    }

    // ------------------------------------------------------------------ peers

    @Override
    public void addPeer(String peerId, PeerDescriptor peer) {
        registrar.addPeer(peerId, peer);
    }

    @Override
    public CompletableFuture<Void> addPeerAsync(String peerId, PeerDescriptor peer) {
        return registrar.addPeerAsync(peerId, peer);
    }

    @Override
    public boolean removePeer(String peerId) {
        return registrar.removePeer(peerId);
    }

    @Override
    public Optional<PeerTraffic> traffic(String peerId) {
        Objects.requireNonNull(peerId, "peerId");
        return completions.traffic(peerId);
    }

    // ------------------------------------------------------------------ transfers

    @Override
    public long writeBlocks(String peerId, int[] localBlocks, int[] remoteBlocks) {
        return submitter.submit(TransferOp.WRITE, peerId, localBlocks, remoteBlocks);
    }

    @Override
    public long readBlocks(String peerId, int[] localBlocks, int[] remoteBlocks) {
        if (!capabilities.contains(Capability.READ)) {
            Objects.requireNonNull(peerId, "peerId");
            throw new UnsupportedOperationException("backend " + backend + " does not support READ");
        }
        return submitter.submit(TransferOp.READ, peerId, localBlocks, remoteBlocks);
    }

    @Override
    public TransferFuture writeBlocksAsync(String peerId, int[] localBlocks, int[] remoteBlocks) {
        return submitter.submitAsync(TransferOp.WRITE, peerId, localBlocks, remoteBlocks);
    }

    @Override
    public TransferFuture readBlocksAsync(String peerId, int[] localBlocks, int[] remoteBlocks) {
        if (!capabilities.contains(Capability.READ)) {
            Objects.requireNonNull(peerId, "peerId");
            throw new UnsupportedOperationException("backend " + backend + " does not support READ");
        }
        return submitter.submitAsync(TransferOp.READ, peerId, localBlocks, remoteBlocks);
    }

    @Override
    public long writeBlocks(String peerId, int[] localBlocks, int[] remoteBlocks, byte[] notification) {
        return submitter.submit(TransferOp.WRITE, peerId, localBlocks, remoteBlocks, notification);
    }

    @Override
    public long readBlocks(String peerId, int[] localBlocks, int[] remoteBlocks, byte[] notification) {
        checkRead(peerId);
        return submitter.submit(TransferOp.READ, peerId, localBlocks, remoteBlocks, notification);
    }

    @Override
    public TransferFuture writeBlocksAsync(String peerId, int[] localBlocks, int[] remoteBlocks, byte[] notification) {
        Objects.requireNonNull(notification, "notification");
        return submitter.submitAsync(TransferOp.WRITE, peerId, localBlocks, remoteBlocks, notification);
    }

    @Override
    public TransferFuture readBlocksAsync(String peerId, int[] localBlocks, int[] remoteBlocks, byte[] notification) {
        checkRead(peerId);
        Objects.requireNonNull(notification, "notification");
        return submitter.submitAsync(TransferOp.READ, peerId, localBlocks, remoteBlocks, notification);
    }

    private void checkRead(String peerId) {
        if (!capabilities.contains(Capability.READ)) {
            Objects.requireNonNull(peerId, "peerId");
            throw new UnsupportedOperationException("backend " + backend + " does not support READ");
        }
    }

    // ------------------------------------------------------------------ notifications

    @Override
    public boolean sendNotification(String peerId, byte[] payload) {
        return notifications.send(peerId, payload);
    }

    @Override
    public int pollNotifications(NotificationHandler handler) {
        return notifications.poll(handler);
    }

    @Override
    public int pollNotifications(NotificationHandler handler, long timeout, TimeUnit unit) throws InterruptedException {
        return notifications.poll(handler, timeout, unit);
    }

    @Override
    public Flow.Publisher<Notification> notifications() {
        return notifications.publisher();
    }

    @Override
    public NotificationStats notificationStats() {
        return notifications.stats();
    }

    // ------------------------------------------------------------------ polls

    @Override
    public PollResult poll(String peerId) {
        Objects.requireNonNull(peerId, "peerId");
        return completions.poll(peerId);
    }

    @Override
    public int poll(String peerId, CompletionHandler handler) {
        Objects.requireNonNull(peerId, "peerId");
        Objects.requireNonNull(handler, "handler");
        return completions.poll(peerId, handler);
    }

    @Override
    public PollResult pollAll() {
        return completions.pollAll();
    }

    @Override
    public int pollAll(CompletionHandler handler) {
        Objects.requireNonNull(handler, "handler");
        return completions.pollAll(handler);
    }

    // ------------------------------------------------------------------ waits

    @Override
    public PollResult poll(String peerId, long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(peerId, "peerId");
        return waits.poll(peerId, timeout, unit);
    }

    @Override
    public int poll(String peerId, CompletionHandler handler, long timeout, TimeUnit unit)
            throws InterruptedException {
        Objects.requireNonNull(peerId, "peerId");
        Objects.requireNonNull(handler, "handler");
        return waits.poll(peerId, handler, timeout, unit);
    }

    @Override
    public PollResult pollAll(long timeout, TimeUnit unit) throws InterruptedException {
        return waits.poll(null, timeout, unit);
    }

    @Override
    public int pollAll(CompletionHandler handler, long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(handler, "handler");
        return waits.poll(null, handler, timeout, unit);
    }

    // ------------------------------------------------------------------ cancel

    @Override
    public long[] cancel(long[] ids, CancelMode mode) {
        Objects.requireNonNull(ids, "ids");
        Objects.requireNonNull(mode, "mode");
        return canceller.cancel(ids, mode);
    }

    // ------------------------------------------------------------------ lifecycle

    @Override
    public <T> Optional<T> feature(Class<T> type) {
        Objects.requireNonNull(type, "type");
        state.ensureOpen();
        return engine.feature(type);
    }

    /** Whether {@link #close()} has begun. */
    public boolean isClosed() {
        return !state.isOpen();
    }

    @Override
    public void close() {
        teardown.close();
        notifications.close();
    }

    @Override
    public String toString() {
        return backend + " transport '" + agentName + "'";
    }
}
