package io.blockxfer.transport.spi;

import io.blockxfer.transport.BlockRegion;
import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.CompletionHandler;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.IncompatiblePeerException;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PeerRegistrationException;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegistrationSupersededException;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.TransportException;
import io.blockxfer.transport.internal.CompletionScratch;
import io.blockxfer.transport.internal.IdList;
import io.blockxfer.transport.internal.InflightTable;
import io.blockxfer.transport.internal.OrphanSet;
import io.blockxfer.transport.internal.PeerSlot;
import io.blockxfer.transport.internal.Registration;
import io.blockxfer.transport.internal.Telemetry;
import io.blockxfer.transport.internal.jfr.PeerRegistrationEvent;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

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
 * <p><b>Thread safety:</b> thread-safe, as {@link DataTransport} requires. Each peer has its own
 * lock, so sessions of different peers do not contend; submits and polls allocate nothing in the
 * steady state.
 */
public final class ManagedTransport implements DataTransport {

    private static final System.Logger LOG = System.getLogger(ManagedTransport.class.getName());
    private static final AtomicLong GENERATIONS = new AtomicLong();
    private static final long[] NO_IDS = new long[0];
    private static final int OPEN = 0;
    private static final int CLOSING = 1;
    private static final int CLOSED = 2;

    private final TransferEngine engine;
    private final String backend;
    private final String agentName;
    private final BlockRegion region;
    private final String fingerprint;
    private final Set<Capability> capabilities;
    private final PeerDescriptor localDescriptor;
    private final long transferTimeoutNanos;
    private final long closeTimeoutNanos;
    private final ConcurrentHashMap<String, PeerSlot> peers = new ConcurrentHashMap<>();
    private final AtomicLong nextId = new AtomicLong();
    private final OrphanSet orphans = new OrphanSet();
    private volatile int orphanCount;
    private final ExecutorService registrar;
    private final AtomicInteger state = new AtomicInteger(OPEN);
    private final CountDownLatch closed = new CountDownLatch(1);
    private final Telemetry telemetry;

    /**
     * A transport over {@code engine}, which it owns from now on (closing the transport closes
     * the engine).
     *
     * @param capabilities what the backend supports; {@link Capability#READ} gates reads
     */
    public ManagedTransport(TransferEngine engine, TransportConfig config, Set<Capability> capabilities) {
        this.engine = Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(config, "config");
        this.backend = engine.backendName();
        this.agentName = config.agentName();
        this.region = engine.region();
        this.fingerprint = config.fingerprint();
        this.capabilities = capabilities.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(capabilities));
        this.localDescriptor = PeerDescriptor.of(backend, fingerprint, region, engine.agentMetadata());
        this.transferTimeoutNanos = config.transferTimeout().toNanos();
        this.closeTimeoutNanos = config.closeTimeout().toNanos();
        this.telemetry = new Telemetry(backend, agentName, config.observer());
        this.registrar = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "blockxfer-" + backend + "-registration-" + agentName);
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public String backendName() {
        return backend;
    }

    @Override
    public BlockRegion region() {
        ensureOpen();
        return region;
    }

    @Override
    public String configFingerprint() {
        return fingerprint;
    }

    @Override
    public byte[] agentMetadata() {
        ensureOpen();
        return localDescriptor.metadata();
    }

    @Override
    public PeerDescriptor localDescriptor() {
        ensureOpen();
        return localDescriptor;
    }

    // ------------------------------------------------------------------ peers

    @Override
    public void addPeer(String peerId, PeerDescriptor peer) {
        checkPeer(peerId, peer);
        Pending pending = beginRegistration(peerId);
        register(pending, peerId, peer);
    }

    /** Builds the peer's native state and publishes it unless superseded; times it for telemetry. */
    private void register(Pending pending, String peerId, PeerDescriptor peer) {
        long start = System.nanoTime();
        PeerRegistrationEvent event = telemetry.registrationStarted();
        Object handle;
        try {
            handle = connect(peerId, peer);
        } catch (RuntimeException | Error e) {
            abandon(pending);
            telemetry.registered(event, start, peerId, peer.numBlocks(), "failed: " + e.getClass().getSimpleName());
            throw e;
        }
        try {
            publish(pending, peer, handle);
        } catch (RegistrationSupersededException e) {
            telemetry.registered(event, start, peerId, peer.numBlocks(), "superseded");
            throw e;
        }
        telemetry.registered(event, start, peerId, peer.numBlocks(), "published");
    }

    @Override
    public CompletableFuture<Void> addPeerAsync(String peerId, PeerDescriptor peer) {
        checkPeer(peerId, peer);
        Pending pending = beginRegistration(peerId);
        CompletableFuture<Void> future = new CompletableFuture<>();
        try {
            registrar.execute(() -> {
                try {
                    if (isStale(pending)) {
                        abandon(pending);
                        future.completeExceptionally(superseded(peerId));
                        return;
                    }
                    register(pending, peerId, peer);
                    future.complete(null);
                } catch (Throwable t) {
                    future.completeExceptionally(t);
                }
            });
        } catch (RejectedExecutionException e) {
            abandon(pending);
            throw new IllegalStateException("transport closed: " + this, e);
        }
        return future;
    }

    @Override
    public boolean removePeer(String peerId) {
        Objects.requireNonNull(peerId, "peerId");
        ensureOpen();
        PeerSlot slot = peers.get(peerId);
        if (slot == null) {
            return false;
        }
        Object toDisconnect = null;
        boolean known;
        synchronized (slot) {
            ensureOpen();
            known = slot.registration != null || slot.pendingRegistrations > 0;
            slot.generation = GENERATIONS.incrementAndGet();
            Registration reg = slot.registration;
            if (reg != null) {
                slot.registration = null;
                toDisconnect = retireLocked(slot, reg, "removed");
            }
            buryIfIdle(slot);
        }
        disconnectQuietly(toDisconnect);
        reapOrphans();
        return known;
    }

    private void checkPeer(String peerId, PeerDescriptor peer) {
        Objects.requireNonNull(peerId, "peerId");
        Objects.requireNonNull(peer, "peer");
        ensureOpen();
        if (peerId.isEmpty()) {
            throw new IllegalArgumentException("peerId must not be empty");
        }
        if (!peer.backend().equals(backend)) {
            throw new IncompatiblePeerException("peer '" + peerId + "' uses backend '" + peer.backend()
                    + "', this transport uses '" + backend + "'");
        }
        if (peer.blockLength() != region.blockLength()) {
            throw new IncompatiblePeerException("peer '" + peerId + "' has block length " + peer.blockLength()
                    + ", this transport " + region.blockLength());
        }
        if (!peer.fingerprint().equals(fingerprint)) {
            throw new IncompatiblePeerException("peer '" + peerId + "' has config fingerprint '" + peer.fingerprint()
                    + "', this transport '" + fingerprint + "'");
        }
    }

    private record Pending(PeerSlot slot, long generation) {
    }

    private Pending beginRegistration(String peerId) {
        while (true) {
            PeerSlot slot = peers.computeIfAbsent(peerId, PeerSlot::new);
            Object toDisconnect = null;
            long generation;
            synchronized (slot) {
                if (slot.dead) {
                    continue;
                }
                ensureOpen();
                generation = GENERATIONS.incrementAndGet();
                slot.generation = generation;
                slot.pendingRegistrations++;
                Registration old = slot.registration;
                if (old != null) {
                    slot.registration = null;
                    toDisconnect = retireLocked(slot, old, "replaced");
                }
            }
            disconnectQuietly(toDisconnect);
            return new Pending(slot, generation);
        }
    }

    private boolean isStale(Pending pending) {
        synchronized (pending.slot) {
            return state.get() != OPEN || pending.slot.generation != pending.generation;
        }
    }

    private Object connect(String peerId, PeerDescriptor peer) {
        try {
            Object handle = engine.connect(peerId, peer);
            return Objects.requireNonNull(handle, "engine returned no peer handle");
        } catch (TransportException e) {
            throw e;
        } catch (RuntimeException | LinkageError e) {
            throw new PeerRegistrationException("registering peer '" + peerId + "' with " + backend + " failed: " + e, e);
        }
    }

    private void publish(Pending pending, PeerDescriptor peer, Object handle) {
        PeerSlot slot = pending.slot;
        boolean fresh;
        synchronized (slot) {
            slot.pendingRegistrations--;
            fresh = state.get() == OPEN && slot.generation == pending.generation;
            if (fresh) {
                slot.registration = new Registration(handle, peer);
                if (slot.failing) {
                    slot.failing = false;
                    telemetry.peerRecovered(slot.peerId);
                }
            } else {
                buryIfIdle(slot);
            }
        }
        if (!fresh) {
            LOG.log(Level.INFO, "{0}: discarding superseded registration of peer ''{1}''", this, slot.peerId);
            disconnectQuietly(handle);
            throw superseded(slot.peerId);
        }
    }

    private void abandon(Pending pending) {
        synchronized (pending.slot) {
            pending.slot.pendingRegistrations--;
            buryIfIdle(pending.slot);
        }
    }

    private RegistrationSupersededException superseded(String peerId) {
        return new RegistrationSupersededException("registration of peer '" + peerId + "' on " + this
                + " was superseded (peer removed or re-added, or transport closed, while registering)");
    }

    /**
     * Takes a registration out of service: aborts its transfers in flight, owes the next poll a
     * report of each (done if it had completed, otherwise failed), and keeps the handles that are
     * not terminal yet as orphans. Returns
     * the engine peer handle to disconnect now, or null if transfers still hold it.
     */
    private Object retireLocked(PeerSlot slot, Registration reg, String why) {
        InflightTable table = slot.inflight;
        int ended = 0;
        if (table.size() > 0) {
            long now = System.nanoTime();
            abortQuietly(reg);
            boolean[] keep = slot.keepFlags();
            for (int i = 0; i < table.size(); i++) {
                keep[i] = table.registration(i) != reg;
                if (!keep[i]) {
                    ended++;
                    Object handle = table.handle(i);
                    int status = statusOf(handle);
                    telemetry.ended(slot.peerId, table.id(i), table.op(i), table.blocks(i),
                            table.blocks(i) * region.blockLength(), now - table.startNanos(i),
                            status == TransferEngine.DONE);
                    if (status == TransferEngine.PENDING) {
                        slot.owedFailures.add(table.id(i));
                        orphan(handle, reg);
                    } else {
                        (status == TransferEngine.DONE ? slot.owedDone : slot.owedFailures).add(table.id(i));
                        releaseQuietly(handle);
                        reg.transferReleased();
                    }
                }
            }
            table.compact(keep);
        }
        LOG.log(Level.DEBUG, "{0}: peer ''{1}'' {2}", this, slot.peerId, why);
        telemetry.removed(slot.peerId, why, ended);
        return reg.retire() ? reg.peer() : null;
    }

    private void buryIfIdle(PeerSlot slot) {
        if (!slot.dead && slot.isIdle()) {
            slot.dead = true;
            peers.remove(slot.peerId, slot);
        }
    }

    // ------------------------------------------------------------------ transfers

    @Override
    public long writeBlocks(String peerId, int[] localBlocks, int[] remoteBlocks) {
        return submit(TransferOp.WRITE, peerId, localBlocks, remoteBlocks);
    }

    @Override
    public long readBlocks(String peerId, int[] localBlocks, int[] remoteBlocks) {
        if (!capabilities.contains(Capability.READ)) {
            Objects.requireNonNull(peerId, "peerId");
            throw new UnsupportedOperationException("backend " + backend + " does not support READ");
        }
        return submit(TransferOp.READ, peerId, localBlocks, remoteBlocks);
    }

    private long submit(TransferOp op, String peerId, int[] localBlocks, int[] remoteBlocks) {
        Objects.requireNonNull(peerId, "peerId");
        Objects.requireNonNull(localBlocks, "localBlocks");
        Objects.requireNonNull(remoteBlocks, "remoteBlocks");
        ensureOpen();
        if (localBlocks.length != remoteBlocks.length) {
            throw new IllegalArgumentException("localBlocks has " + localBlocks.length + " indices but remoteBlocks has "
                    + remoteBlocks.length);
        }
        if (localBlocks.length == 0) {
            throw new IllegalArgumentException("empty transfer: no block indices given");
        }
        checkIndices("local", localBlocks, region.numBlocks());
        PeerSlot slot = peers.get(peerId);
        if (slot == null) {
            return NOT_SUBMITTED;
        }
        synchronized (slot) {
            ensureOpen();
            Registration reg = slot.registration;
            if (reg == null) {
                return NOT_SUBMITTED;
            }
            checkIndices("remote", remoteBlocks, reg.numBlocks());
            long id = nextId.getAndIncrement();
            Object handle;
            try {
                handle = engine.submit(id, reg.peer(), op, localBlocks, remoteBlocks);
                if (handle == null) {
                    throw new IllegalStateException("engine returned no transfer handle");
                }
            } catch (RuntimeException | LinkageError e) {
                slot.owedFailures.add(id);
                noteFailure(slot, op + " submit", e);
                telemetry.submitted(peerId, id, op, localBlocks.length, localBlocks.length * region.blockLength());
                telemetry.ended(peerId, id, op, localBlocks.length, localBlocks.length * region.blockLength(), 0, false);
                return id;
            }
            reg.transferStarted();
            slot.inflight.add(id, handle, reg, System.nanoTime(), op, localBlocks.length);
            telemetry.submitted(peerId, id, op, localBlocks.length, localBlocks.length * region.blockLength());
            return id;
        }
    }

    private static void checkIndices(String side, int[] blocks, int numBlocks) {
        for (int i = 0; i < blocks.length; i++) {
            int b = blocks[i];
            if (b < 0 || b >= numBlocks) {
                throw new IllegalArgumentException(side + " block index " + b + " at position " + i
                        + " is out of range [0, " + numBlocks + ")");
            }
        }
    }

    // ------------------------------------------------------------------ polls

    @Override
    public PollResult poll(String peerId) {
        Objects.requireNonNull(peerId, "peerId");
        ensureOpen();
        driveProgress();
        PeerSlot slot = peers.get(peerId);
        if (slot == null && orphanCount == 0) {
            return PollResult.EMPTY;
        }
        CompletionScratch scratch = CompletionScratch.acquire();
        if (slot != null) {
            pollSlot(slot, scratch);
        }
        reapOrphans();
        return scratch.toResult();
    }

    @Override
    public int poll(String peerId, CompletionHandler handler) {
        Objects.requireNonNull(peerId, "peerId");
        Objects.requireNonNull(handler, "handler");
        ensureOpen();
        driveProgress();
        PeerSlot slot = peers.get(peerId);
        if (slot == null && orphanCount == 0) {
            return 0;
        }
        CompletionScratch scratch = CompletionScratch.acquire();
        if (slot != null) {
            pollSlot(slot, scratch);
        }
        reapOrphans();
        return scratch.deliver(handler);
    }

    @Override
    public PollResult pollAll() {
        ensureOpen();
        driveProgress();
        CompletionScratch scratch = CompletionScratch.acquire();
        for (PeerSlot slot : peers.values()) {
            pollSlot(slot, scratch);
        }
        reapOrphans();
        return scratch.toResult();
    }

    @Override
    public int pollAll(CompletionHandler handler) {
        Objects.requireNonNull(handler, "handler");
        ensureOpen();
        driveProgress();
        CompletionScratch scratch = CompletionScratch.acquire();
        for (PeerSlot slot : peers.values()) {
            pollSlot(slot, scratch);
        }
        reapOrphans();
        return scratch.deliver(handler);
    }

    private void pollSlot(PeerSlot slot, CompletionScratch out) {
        List<Object> toDisconnect = null;
        synchronized (slot) {
            if (slot.dead || state.get() != OPEN) {
                return;
            }
            IdList owed = slot.owedDone;
            for (int i = 0; i < owed.size(); i++) {
                out.add(owed.get(i), true);
            }
            owed.clear();
            owed = slot.owedFailures;
            for (int i = 0; i < owed.size(); i++) {
                out.add(owed.get(i), false);
            }
            owed.clear();
            InflightTable table = slot.inflight;
            int n = table.size();
            if (n > 0) {
                boolean[] keep = slot.keepFlags();
                long now = System.nanoTime();
                int expired = 0;
                boolean removed = false;
                for (int i = 0; i < n; i++) {
                    Object handle = table.handle(i);
                    int status = statusOf(handle);
                    if (status == TransferEngine.PENDING) {
                        keep[i] = true;
                        if (now - table.startNanos(i) > transferTimeoutNanos) {
                            expired++;
                        }
                        continue;
                    }
                    keep[i] = false;
                    removed = true;
                    boolean success = status == TransferEngine.DONE;
                    long id = table.id(i);
                    out.add(id, success);
                    if (success) {
                        if (slot.failing) {
                            slot.failing = false;
                            telemetry.peerRecovered(slot.peerId);
                        }
                        if (telemetry.wantsNativeTelemetry() && nativeTelemetry(handle, slot.nativeTelemetry)) {
                            telemetry.nativeTelemetry(slot.peerId, id, slot.nativeTelemetry);
                        }
                    } else {
                        noteFailure(slot, "transfer " + id, null);
                    }
                    telemetry.ended(slot.peerId, id, table.op(i), table.blocks(i), table.blocks(i) * region.blockLength(),
                            now - table.startNanos(i), success);
                    toDisconnect = releaseLocked(handle, table.registration(i), toDisconnect);
                }
                if (expired > 0) {
                    toDisconnect = expireLocked(slot, keep, now, out, toDisconnect);
                    removed = true;
                }
                if (removed) {
                    table.compact(keep);
                }
            }
            buryIfIdle(slot);
        }
        if (toDisconnect != null) {
            toDisconnect.forEach(this::disconnectQuietly);
        }
    }

    /**
     * Fails every transfer of the slot past its deadline: aborts the peer's connection, releases
     * what became terminal and orphans the rest.
     */
    private List<Object> expireLocked(PeerSlot slot, boolean[] keep, long now, CompletionScratch out,
            List<Object> toDisconnect) {
        InflightTable table = slot.inflight;
        Registration aborted = null;
        for (int i = 0; i < table.size(); i++) {
            if (keep[i] && now - table.startNanos(i) > transferTimeoutNanos && table.registration(i) != aborted) {
                aborted = table.registration(i);
                abortQuietly(aborted);
            }
        }
        if (!slot.failing) {
            slot.failing = true;
            LOG.log(Level.WARNING, "{0}: peer ''{1}'' missed the transfer deadline of {2} ms; its connection was"
                    + " aborted and its overdue transfers are reported failed", this, slot.peerId,
                    transferTimeoutNanos / 1_000_000);
            telemetry.peerFailing(slot.peerId, "missed the transfer deadline of " + transferTimeoutNanos / 1_000_000
                    + " ms");
        }
        for (int i = 0; i < table.size(); i++) {
            if (!keep[i] || now - table.startNanos(i) <= transferTimeoutNanos) {
                continue;
            }
            keep[i] = false;
            out.add(table.id(i), false);
            telemetry.ended(slot.peerId, table.id(i), table.op(i), table.blocks(i),
                    table.blocks(i) * region.blockLength(), now - table.startNanos(i), false);
            Object handle = table.handle(i);
            if (statusOf(handle) == TransferEngine.PENDING) {
                orphan(handle, table.registration(i));
            } else {
                toDisconnect = releaseLocked(handle, table.registration(i), toDisconnect);
            }
        }
        return toDisconnect;
    }

    // ------------------------------------------------------------------ cancel

    @Override
    public long[] cancel(long[] ids, CancelMode mode) {
        Objects.requireNonNull(ids, "ids");
        Objects.requireNonNull(mode, "mode");
        ensureOpen();
        if (ids.length == 0) {
            return NO_IDS;
        }
        long[] sorted = ids.clone();
        Arrays.sort(sorted);
        IdList stillInFlight = mode == CancelMode.WAIT ? new IdList() : null;
        List<Object> toDisconnect = null;
        int cancelled = 0;
        for (PeerSlot slot : peers.values()) {
            synchronized (slot) {
                if (slot.dead || state.get() != OPEN) {
                    continue;
                }
                cancelled += slot.owedDone.removeAll(sorted);
                cancelled += slot.owedFailures.removeAll(sorted);
                InflightTable table = slot.inflight;
                boolean[] keep = slot.keepFlags();
                boolean removed = false;
                for (int i = 0; i < table.size(); i++) {
                    keep[i] = true;
                    if (Arrays.binarySearch(sorted, table.id(i)) < 0) {
                        continue;
                    }
                    Object handle = table.handle(i);
                    if (statusOf(handle) == TransferEngine.PENDING) {
                        if (mode == CancelMode.WAIT) {
                            stillInFlight.add(table.id(i));
                            continue;
                        }
                        telemetry.cancelled(slot.peerId, table.id(i), table.op(i), true);
                        orphan(handle, table.registration(i));
                    } else {
                        telemetry.cancelled(slot.peerId, table.id(i), table.op(i), false);
                        toDisconnect = releaseLocked(handle, table.registration(i), toDisconnect);
                    }
                    keep[i] = false;
                    removed = true;
                    cancelled++;
                }
                if (removed) {
                    table.compact(keep);
                }
                buryIfIdle(slot);
            }
        }
        if (toDisconnect != null) {
            toDisconnect.forEach(this::disconnectQuietly);
        }
        reapOrphans();
        telemetry.cancelCall(mode, ids.length, cancelled, stillInFlight == null ? 0 : stillInFlight.size());
        return stillInFlight == null || stillInFlight.size() == 0 ? NO_IDS
                : Arrays.copyOf(stillInFlight.array(), stillInFlight.size());
    }

    // ------------------------------------------------------------------ orphans and engine calls

    private void orphan(Object handle, Registration reg) {
        synchronized (orphans) {
            orphans.add(handle, reg);
            orphanCount = orphans.size();
        }
    }

    private void reapOrphans() {
        if (orphanCount == 0) {
            return;
        }
        List<Object> toDisconnect = null;
        synchronized (orphans) {
            for (int i = orphans.size() - 1; i >= 0; i--) {
                Object handle = orphans.handle(i);
                if (statusOf(handle) != TransferEngine.PENDING) {
                    toDisconnect = releaseLocked(handle, orphans.registration(i), toDisconnect);
                    orphans.removeAt(i);
                }
            }
            orphanCount = orphans.size();
        }
        if (toDisconnect != null) {
            toDisconnect.forEach(this::disconnectQuietly);
        }
    }

    /** Lets the polling thread advance the engine (see {@link TransferEngine#progress}). */
    private void driveProgress() {
        try {
            engine.progress();
        } catch (RuntimeException | LinkageError e) {
            LOG.log(Level.DEBUG, () -> this + ": driving progress on the polling thread failed: " + e);
        }
    }

    private int statusOf(Object handle) {
        try {
            return engine.status(handle);
        } catch (RuntimeException | LinkageError e) {
            LOG.log(Level.DEBUG, () -> this + ": transfer status check failed: " + e);
            return TransferEngine.FAILED;
        }
    }

    private List<Object> releaseLocked(Object handle, Registration reg, List<Object> toDisconnect) {
        releaseQuietly(handle);
        if (reg.transferReleased()) {
            if (toDisconnect == null) {
                toDisconnect = new ArrayList<>(1);
            }
            toDisconnect.add(reg.peer());
        }
        return toDisconnect;
    }

    private void releaseQuietly(Object handle) {
        try {
            engine.release(handle);
        } catch (RuntimeException | LinkageError e) {
            LOG.log(Level.WARNING, () -> this + ": releasing a terminal transfer failed: " + e);
        }
    }

    private void abortQuietly(Registration reg) {
        try {
            engine.abort(reg.peer());
        } catch (RuntimeException | LinkageError e) {
            LOG.log(Level.WARNING, () -> this + ": aborting a peer connection failed: " + e);
        }
    }

    private void disconnectQuietly(Object peerHandle) {
        if (peerHandle == null) {
            return;
        }
        try {
            engine.disconnect(peerHandle);
        } catch (RuntimeException | LinkageError e) {
            LOG.log(Level.WARNING, () -> this + ": disconnecting a peer failed: " + e);
        }
    }

    private void noteFailure(PeerSlot slot, String what, Throwable error) {
        if (!slot.failing) {
            slot.failing = true;
            String reason = what + " failed" + (error == null ? "" : ": " + error);
            LOG.log(Level.WARNING, "{0}: peer ''{1}'' is failing: {2}", this, slot.peerId, reason);
            telemetry.peerFailing(slot.peerId, reason);
        }
    }

    private boolean nativeTelemetry(Object handle, long[] out) {
        try {
            return engine.nativeTelemetry(handle, out);
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    // ------------------------------------------------------------------ lifecycle

    @Override
    public <T> Optional<T> feature(Class<T> type) {
        Objects.requireNonNull(type, "type");
        ensureOpen();
        return engine.feature(type);
    }

    private void ensureOpen() {
        if (state.get() != OPEN) {
            throw new IllegalStateException("transport closed: " + this);
        }
    }

    /** Whether {@link #close()} has begun. */
    public boolean isClosed() {
        return state.get() != OPEN;
    }

    @Override
    public void close() {
        if (!state.compareAndSet(OPEN, CLOSING)) {
            awaitClosed();
            return;
        }
        try {
            for (PeerSlot slot : peers.values()) {
                synchronized (slot) {
                    slot.generation = GENERATIONS.incrementAndGet();
                }
            }
            registrar.shutdown();
            awaitRegistrar();
            boolean leaked = drain(System.nanoTime() + closeTimeoutNanos);
            if (leaked) {
                for (PeerSlot slot : peers.values()) {
                    synchronized (slot) {
                        if (slot.registration != null) {
                            abortQuietly(slot.registration);
                        }
                    }
                }
                leaked = drain(System.nanoTime() + Math.min(closeTimeoutNanos, TimeUnit.SECONDS.toNanos(1)));
                if (leaked) {
                    LOG.log(Level.WARNING, "{0}: transfers still in flight after the close timeout; their memory"
                            + " and registrations are left allocated", this);
                }
            }
            List<Object> toDisconnect = new ArrayList<>();
            for (PeerSlot slot : peers.values()) {
                synchronized (slot) {
                    Registration reg = slot.registration;
                    slot.registration = null;
                    if (reg != null && reg.retire()) {
                        toDisconnect.add(reg.peer());
                    }
                }
            }
            toDisconnect.forEach(this::disconnectQuietly);
            peers.clear();
            try {
                engine.close(leaked);
            } catch (RuntimeException | LinkageError e) {
                LOG.log(Level.WARNING, () -> this + ": closing the engine failed: " + e);
            }
        } finally {
            state.set(CLOSED);
            closed.countDown();
        }
    }

    private void awaitRegistrar() {
        try {
            if (!registrar.awaitTermination(Math.max(closeTimeoutNanos, 1), TimeUnit.NANOSECONDS)) {
                LOG.log(Level.WARNING, "{0}: a peer registration is still running after the close timeout", this);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void awaitClosed() {
        boolean interrupted = false;
        while (true) {
            try {
                closed.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Releases every transfer as it becomes terminal, until none is left (returns false) or the
     * deadline passes (returns true: some are leaked).
     */
    private boolean drain(long deadlineNanos) {
        while (true) {
            boolean busy = false;
            for (PeerSlot slot : peers.values()) {
                List<Object> toDisconnect = null;
                synchronized (slot) {
                    slot.owedDone.clear();
                    slot.owedFailures.clear();
                    InflightTable table = slot.inflight;
                    boolean[] keep = slot.keepFlags();
                    for (int i = 0; i < table.size(); i++) {
                        Object handle = table.handle(i);
                        keep[i] = statusOf(handle) == TransferEngine.PENDING;
                        if (keep[i]) {
                            busy = true;
                        } else {
                            toDisconnect = releaseLocked(handle, table.registration(i), toDisconnect);
                        }
                    }
                    table.compact(keep);
                }
                if (toDisconnect != null) {
                    toDisconnect.forEach(this::disconnectQuietly);
                }
            }
            reapOrphans();
            if (!busy && orphanCount == 0) {
                return false;
            }
            if (System.nanoTime() - deadlineNanos > 0) {
                return true;
            }
            LockSupport.parkNanos(200_000);
        }
    }

    @Override
    public String toString() {
        return backend + " transport '" + agentName + "'";
    }
}
