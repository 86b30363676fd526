package io.blockxfer.transport.internal;

import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.Notification;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.TransportObserver;
import io.blockxfer.transport.internal.jfr.NotificationEvent;
import io.blockxfer.transport.internal.jfr.NotificationReceivedEvent;
import io.blockxfer.transport.internal.jfr.NotificationRefusedEvent;
import io.blockxfer.transport.internal.jfr.NotificationSentEvent;
import io.blockxfer.transport.internal.jfr.NotificationsDroppedEvent;
import io.blockxfer.transport.internal.jfr.PeerFailureEvent;
import io.blockxfer.transport.internal.jfr.PeerRegistrationEvent;
import io.blockxfer.transport.internal.jfr.PeerRemovedEvent;
import io.blockxfer.transport.internal.jfr.TransferCancelledEvent;
import io.blockxfer.transport.internal.jfr.TransferCompletedEvent;
import io.blockxfer.transport.internal.jfr.TransferFailedEvent;
import io.blockxfer.transport.internal.jfr.TransferEvent;
import io.blockxfer.transport.internal.jfr.TransferSubmittedEvent;
import java.lang.System.Logger.Level;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import jdk.jfr.FlightRecorder;

/**
 * The one place a transport reports what it does: JFR events (each built only when JFR records
 * it, so nothing is allocated when no recording runs) and the configured
 * {@link TransportObserver}, whose failures are caught and logged once.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class Telemetry {

    private static final System.Logger LOG = System.getLogger(Telemetry.class.getName());
    /**
     * {@code -Dblockxfer.jfr.disabled=true} takes the JFR events out of the code the JIT compiles (a
     * constant-folded switch); it exists to measure what the events cost when nothing records.
     */
    private static final boolean JFR = !Boolean.getBoolean("blockxfer.jfr.disabled");

    /**
     * Whether events are worth building: JFR's recorder exists (a recording runs or ran). The first
     * instance of an event class initialises it, and in a process where JFR never started that
     * initialises JFR's whole Java side (some 300 classes and annotation proxies, 0.1-0.2 s of CPU)
     * in the middle of the first {@code addPeer} or transfer; until a recording starts no event
     * could be recorded anyway.
     */
    private static boolean recorder() {
        return JFR && FlightRecorder.isInitialized();
    }

    private final String backend;
    private final String agent;
    private final TransportObserver observer;
    private final boolean observing;
    private final boolean wantsNative;
    private volatile boolean observerFailed;
    /** Drops not yet in a {@link NotificationsDroppedEvent}, and when the last one was committed. */
    private final AtomicLong dropsUnreported = new AtomicLong();
    private volatile long lastDropEventNanos;

    public Telemetry(String backend, String agent, TransportObserver observer) {
        this.backend = backend;
        this.agent = agent;
        this.observer = observer;
        this.observing = observer != TransportObserver.NONE;
        this.wantsNative = observing && observer.wantsNativeTelemetry();
        if (observing) {
            observe(o -> o.transportOpened(backend, agent));
        }
    }

    public boolean wantsNativeTelemetry() {
        return wantsNative;
    }

    public void submitted(String peer, long id, TransferOp op, int blocks, long bytes) {
        if (recorder()) {
            TransferSubmittedEvent e = new TransferSubmittedEvent();
            if (e.shouldCommit()) {
                fill(e, peer, id, op, blocks, bytes);
                e.commit();
            }
        }
        if (observing) {
            try {
                observer.transferSubmitted(peer, id, op, blocks, bytes);
            } catch (RuntimeException ex) {
                observerFailed(ex);
            }
        }
    }

    public void ended(String peer, long id, TransferOp op, int blocks, long bytes, long latencyNanos, boolean success) {
        if (recorder()) {
            if (success) {
                TransferCompletedEvent e = new TransferCompletedEvent();
                if (e.shouldCommit()) {
                    fill(e, peer, id, op, blocks, bytes);
                    e.latency = latencyNanos;
                    e.commit();
                }
            } else {
                TransferFailedEvent e = new TransferFailedEvent();
                if (e.shouldCommit()) {
                    fill(e, peer, id, op, blocks, bytes);
                    e.latency = latencyNanos;
                    e.commit();
                }
            }
        }
        if (observing) {
            try {
                observer.transferEnded(peer, id, op, blocks, bytes, latencyNanos, success);
            } catch (RuntimeException ex) {
                observerFailed(ex);
            }
        }
    }

    public void nativeTelemetry(String peer, long id, long[] values) {
        if (observing) {
            observe(o -> o.nativeTelemetry(peer, id, values[0], values[1], values[2], values[3]));
        }
    }

    /** One cancelled transfer, for the observer. */
    public void cancelled(String peer, long id, TransferOp op, boolean stillInFlight) {
        if (observing) {
            observe(o -> o.transferCancelled(peer, id, op, stillInFlight));
        }
    }

    /** One cancel call, for JFR. */
    public void cancelCall(CancelMode mode, int asked, int cancelled, int stillInFlight) {
        if (recorder()) {
            TransferCancelledEvent e = new TransferCancelledEvent();
            if (e.isEnabled()) {
                e.backend = backend;
                e.agent = agent;
                e.mode = mode.name();
                e.asked = asked;
                e.cancelled = cancelled;
                e.stillInFlight = stillInFlight;
                e.commit();
            }
        }
    }

    /** Starts timing a registration (empty when JFR's recorder does not exist); finish it with {@link #registered}. */
    public Optional<PeerRegistrationEvent> registrationStarted() {
        if (!recorder()) {
            return Optional.empty();
        }
        PeerRegistrationEvent e = new PeerRegistrationEvent();
        e.begin();
        return Optional.of(e);
    }

    public void registered(Optional<PeerRegistrationEvent> started, long startNanos, String peer, int blocks,
            String outcome) {
        if (started.isPresent()) {
            commit(started.get(), peer, blocks, outcome);
        }
        if (observing) {
            observe(o -> o.peerRegistered(peer, blocks, System.nanoTime() - startNanos, outcome.equals("published")));
        }
    }

    private void commit(PeerRegistrationEvent e, String peer, int blocks, String outcome) {
        e.end();
        if (e.shouldCommit()) {
            e.backend = backend;
            e.agent = agent;
            e.peer = peer;
            e.blocks = blocks;
            e.outcome = outcome;
            e.commit();
        }
    }

    public void removed(String peer, String reason, int endedTransfers) {
        if (recorder()) {
            PeerRemovedEvent e = new PeerRemovedEvent();
            if (e.isEnabled()) {
                e.backend = backend;
                e.agent = agent;
                e.peer = peer;
                e.reason = reason;
                e.endedTransfers = endedTransfers;
                e.commit();
            }
        }
        if (observing) {
            observe(o -> o.peerRemoved(peer, endedTransfers));
        }
    }

    public void peerFailing(String peer, String reason) {
        peerState(peer, true, reason);
        if (observing) {
            observe(o -> o.peerFailing(peer, reason));
        }
    }

    public void peerRecovered(String peer) {
        peerState(peer, false, "recovered");
        if (observing) {
            observe(o -> o.peerRecovered(peer));
        }
    }

    private void peerState(String peer, boolean failing, String reason) {
        if (recorder()) {
            PeerFailureEvent e = new PeerFailureEvent();
            if (e.isEnabled()) {
                e.backend = backend;
                e.agent = agent;
                e.peer = peer;
                e.failing = failing;
                e.reason = reason;
                e.commit();
            }
        }
    }

    public void notificationSent(String peer, Notification.Kind kind, long transferId, int bytes) {
        if (recorder()) {
            NotificationSentEvent e = new NotificationSentEvent();
            if (e.shouldCommit()) {
                fill(e, peer, kind, transferId, bytes);
                e.commit();
            }
        }
        if (observing) {
            observe(o -> o.notificationSent(peer, kind, transferId, bytes));
        }
    }

    public void notificationReceived(String sender, Notification.Kind kind, long transferId, int bytes) {
        if (recorder()) {
            NotificationReceivedEvent e = new NotificationReceivedEvent();
            if (e.shouldCommit()) {
                fill(e, sender, kind, transferId, bytes);
                e.commit();
            }
        }
        if (observing) {
            observe(o -> o.notificationReceived(sender, kind, transferId, bytes));
        }
    }

    public void notificationRefused(String sender, String reason) {
        if (recorder()) {
            NotificationRefusedEvent e = new NotificationRefusedEvent();
            if (e.isEnabled()) {
                e.backend = backend;
                e.agent = agent;
                e.sender = sender;
                e.reason = reason;
                e.commit();
            }
        }
        if (observing) {
            observe(o -> o.notificationRefused(sender, reason));
        }
    }

    /** One notification dropped on a full queue; JFR hears of drops at most every 100 ms. */
    public void notificationDropped(String sender) {
        dropsUnreported.incrementAndGet();
        long now = System.nanoTime();
        if (recorder() && now - lastDropEventNanos > 100_000_000L) {
            lastDropEventNanos = now;
            commitDrops(dropsUnreported.getAndSet(0), false);
        }
        if (observing) {
            observe(o -> o.notificationDropped(sender));
        }
    }

    /**
     * The transport closed with {@code count} notifications still queued (discarded); JFR hears of
     * them and of the drops not reported yet.
     */
    public void notificationsDiscarded(int count) {
        if (recorder()) {
            long pending = dropsUnreported.getAndSet(0);
            if (pending > 0) {
                commitDrops(pending, false);
            }
            if (count > 0) {
                commitDrops(count, true);
            }
        }
    }

    private void commitDrops(long count, boolean atClose) {
        NotificationsDroppedEvent e = new NotificationsDroppedEvent();
        if (e.isEnabled()) {
            e.backend = backend;
            e.agent = agent;
            e.count = count;
            e.atClose = atClose;
            e.commit();
        }
    }

    private void fill(NotificationEvent e, String peer, Notification.Kind kind, long transferId, int bytes) {
        e.backend = backend;
        e.agent = agent;
        e.peer = peer;
        e.kind = kind.name();
        e.transferId = transferId;
        e.bytes = bytes;
    }

    private void fill(TransferEvent e, String peer, long id, TransferOp op, int blocks, long bytes) {
        e.backend = backend;
        e.agent = agent;
        e.peer = peer;
        e.transferId = id;
        e.op = op.name();
        e.blocks = blocks;
        e.bytes = bytes;
    }

    /**
     * Calls the observer off the hot path; a throw is logged once and otherwise ignored. Callers
     * test {@code observing} first, so that no lambda is made (nor, the first time, linked) when
     * there is no observer.
     */
    private void observe(java.util.function.Consumer<TransportObserver> call) {
        if (observing) {
            try {
                call.accept(observer);
            } catch (RuntimeException ex) {
                observerFailed(ex);
            }
        }
    }

    private void observerFailed(RuntimeException ex) {
        if (!observerFailed) {
            observerFailed = true;
            LOG.log(Level.WARNING, "transport observer " + observer + " threw; its later failures are not logged", ex);
        }
    }
}
