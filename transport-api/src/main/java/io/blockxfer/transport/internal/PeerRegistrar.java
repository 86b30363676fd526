package io.blockxfer.transport.internal;

import static io.blockxfer.transport.internal.TransportLog.LOG;

import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.RegistrationSupersededException;
import io.blockxfer.transport.internal.jfr.PeerRegistrationEvent;
import io.blockxfer.transport.internal.notify.SenderIndex;
import java.lang.System.Logger.Level;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Adds and removes peers. Each add or remove of a peer id takes a new generation; a registration
 * publishes only if its generation is still the peer's latest, otherwise it releases what it built
 * and fails with {@link RegistrationSupersededException}. Adding a live peer first retires its old
 * registration. Asynchronous adds run one at a time on the transport's registration thread.
 *
 * <p><b>Thread safety:</b> thread-safe; a peer's generation and registration are guarded by its
 * slot's monitor, and the engine's {@code connect} runs outside every lock.
 */
public final class PeerRegistrar {

    private final PeerTable peers;
    private final TransportState state;
    private final GuardedEngine engine;
    private final CompletionTracker completions;
    private final OrphanKeeper orphans;
    private final PeerHealth health;
    private final Telemetry telemetry;
    private final PeerAdmission admission;
    private final SenderIndex senders;
    private final String label;
    private final ExecutorService thread;

    /** @param label how the transport names itself in messages */
    public PeerRegistrar(PeerTable peers, TransportState state, GuardedEngine engine, CompletionTracker completions,
            OrphanKeeper orphans, PeerHealth health, Telemetry telemetry, PeerAdmission admission, SenderIndex senders,
            String backend, String agentName, String label) {
        this.peers = peers;
        this.state = state;
        this.engine = engine;
        this.completions = completions;
        this.orphans = orphans;
        this.health = health;
        this.telemetry = telemetry;
        this.admission = admission;
        this.senders = senders;
        this.label = label;
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "blockxfer-" + backend + "-registration-" + agentName);
            t.setDaemon(true);
            return t;
        });
    }

    /** Registers the peer on the calling thread. */
    public void addPeer(String peerId, PeerDescriptor peer) {
        checkPeer(peerId, peer);
        Pending pending = begin(peerId);
        register(pending, peerId, peer);
    }

    /** Registers the peer on the registration thread; the arguments are checked now. */
    public CompletableFuture<Void> addPeerAsync(String peerId, PeerDescriptor peer) {
        checkPeer(peerId, peer);
        Pending pending = begin(peerId);
        CompletableFuture<Void> future = new CompletableFuture<>();
        try {
            thread.execute(() -> {
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
            throw new IllegalStateException("transport closed: " + label, e);
        }
        return future;
    }

    /** Unregisters the peer; true if it was registered or being registered. */
    public boolean removePeer(String peerId) {
        Objects.requireNonNull(peerId, "peerId");
        state.ensureOpen();
        PeerSlot slot = peers.get(peerId);
        if (slot == null) {
            return false;
        }
        Object toDisconnect = null;
        boolean known;
        synchronized (slot) {
            state.ensureOpen();
            known = slot.registration != null || slot.pendingRegistrations > 0;
            slot.generation = PeerTable.nextGeneration();
            Registration reg = slot.registration;
            if (reg != null) {
                slot.registration = null;
                senders.retired(reg.identity(), peerId);
                toDisconnect = completions.retireLocked(slot, reg, "removed");
            }
            peers.buryIfIdle(slot);
        }
        engine.disconnect(toDisconnect);
        orphans.reap();
        completions.completeReady();
        return known;
    }

    /** Supersedes every registration still running (close has begun). */
    public void supersedeAll() {
        for (PeerSlot slot : peers.all()) {
            synchronized (slot) {
                slot.generation = PeerTable.nextGeneration();
            }
        }
    }

    /** Stops the registration thread, waiting up to {@code timeoutNanos} for a running registration. */
    public void stop(long timeoutNanos) {
        thread.shutdown();
        try {
            if (!thread.awaitTermination(Math.max(timeoutNanos, 1), TimeUnit.NANOSECONDS)) {
                LOG.log(Level.WARNING, "{0}: a peer registration is still running after the close timeout", label);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void checkPeer(String peerId, PeerDescriptor peer) {
        Objects.requireNonNull(peerId, "peerId");
        Objects.requireNonNull(peer, "peer");
        state.ensureOpen();
        admission.check(peerId, peer);
    }

    /** A registration under way: its slot and the generation it may publish under. */
    private record Pending(PeerSlot slot, long generation) {
    }

    private Pending begin(String peerId) {
        while (true) {
            PeerSlot slot = peers.slotFor(peerId);
            Object toDisconnect = null;
            long generation;
            synchronized (slot) {
                if (slot.dead) {
                    continue;
                }
                state.ensureOpen();
                generation = PeerTable.nextGeneration();
                slot.generation = generation;
                slot.pendingRegistrations++;
                Registration old = slot.registration;
                if (old != null) {
                    slot.registration = null;
                    senders.retired(old.identity(), peerId);
                    toDisconnect = completions.retireLocked(slot, old, "replaced");
                }
            }
            engine.disconnect(toDisconnect);
            completions.completeReady();
            return new Pending(slot, generation);
        }
    }

    /** Builds the peer's native state and publishes it unless superseded; times it for telemetry. */
    private void register(Pending pending, String peerId, PeerDescriptor peer) {
        long start = System.nanoTime();
        Optional<PeerRegistrationEvent> event = telemetry.registrationStarted();
        Object handle;
        try {
            handle = engine.connect(peerId, peer);
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

    private boolean isStale(Pending pending) {
        synchronized (pending.slot) {
            return !state.isOpen() || pending.slot.generation != pending.generation;
        }
    }

    private void publish(Pending pending, PeerDescriptor peer, Object handle) {
        PeerSlot slot = pending.slot;
        boolean fresh;
        synchronized (slot) {
            slot.pendingRegistrations--;
            fresh = state.isOpen() && slot.generation == pending.generation;
            if (fresh) {
                Registration reg = new Registration(handle, peer);
                slot.registration = reg;
                senders.published(reg.identity(), slot.peerId);
                slot.submitted = 0;
                health.recovered(slot);
            } else {
                peers.buryIfIdle(slot);
            }
        }
        if (!fresh) {
            LOG.log(Level.INFO, "{0}: discarding superseded registration of peer ''{1}''", label, slot.peerId);
            engine.disconnect(handle);
            throw superseded(slot.peerId);
        }
    }

    private void abandon(Pending pending) {
        synchronized (pending.slot) {
            pending.slot.pendingRegistrations--;
            peers.buryIfIdle(pending.slot);
        }
    }

    private RegistrationSupersededException superseded(String peerId) {
        return new RegistrationSupersededException("registration of peer '" + peerId + "' on " + label
                + " was superseded (peer removed or re-added, or transport closed, while registering)");
    }
}
