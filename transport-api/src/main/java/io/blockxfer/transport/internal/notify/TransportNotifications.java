package io.blockxfer.transport.internal.notify;

import io.blockxfer.transport.Notification;
import io.blockxfer.transport.NotificationHandler;
import io.blockxfer.transport.NotificationStats;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.internal.GuardedEngine;
import io.blockxfer.transport.internal.PeerHealth;
import io.blockxfer.transport.internal.PeerSlot;
import io.blockxfer.transport.internal.PeerTable;
import io.blockxfer.transport.internal.Registration;
import io.blockxfer.transport.internal.Telemetry;
import io.blockxfer.transport.internal.TransportState;
import io.blockxfer.transport.spi.OutboundNotification;
import java.util.Objects;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;

/**
 * A managed transport's notifications, both ways: frames for transfers and standalone messages on
 * the way out ({@link NotificationSender}), and on the way in the engine's sink
 * ({@link NotificationReceiver}), the bounded queue ({@link NotificationInbox}), its polls and waits
 * ({@link NotificationWaits}) and its subscriber ({@link NotificationPublisher}).
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class TransportNotifications {

    private final boolean sending;
    private final String backend;
    private final PeerTable peers;
    private final TransportState state;
    private final GuardedEngine engine;
    private final PeerHealth health;
    private final Telemetry telemetry;
    private final NotificationSender sender;
    private final SenderIndex senders;
    private final NotificationInbox inbox;
    private final NotificationWaits waits;
    private final NotificationPublisher publisher;

    /**
     * @param sending whether the engine carries notifications (and the provider declares the capability)
     */
    public TransportNotifications(boolean sending, String backend, PeerTable peers, TransportState state,
            GuardedEngine engine, PeerHealth health, Telemetry telemetry, NotificationSender sender,
            SenderIndex senders, NotificationInbox inbox, NotificationWaits waits, NotificationPublisher publisher) {
        this.sending = sending;
        this.backend = backend;
        this.peers = peers;
        this.state = state;
        this.engine = engine;
        this.health = health;
        this.telemetry = telemetry;
        this.sender = sender;
        this.senders = senders;
        this.inbox = inbox;
        this.waits = waits;
        this.publisher = publisher;
    }

    /** The sender identities of the transport's registrations. */
    public SenderIndex senders() {
        return senders;
    }

    /**
     * Checks a payload to send before anything else happens.
     *
     * @throws NullPointerException if it is null
     * @throws IllegalArgumentException if it is too long
     * @throws UnsupportedOperationException if the backend cannot send notifications
     */
    public void checkOutgoing(byte[] payload) {
        Objects.requireNonNull(payload, "notification");
        if (!sending) {
            throw new UnsupportedOperationException("backend " + backend + " does not carry notifications");
        }
        Notification.checkPayload(payload);
    }

    /** The frame of a transfer's notification to {@code reg}; the caller holds the peer's lock. */
    public OutboundNotification forTransfer(Registration reg, TransferOp op, long transferId, byte[] payload) {
        return sender.frame(reg, op == TransferOp.WRITE ? Notification.Kind.WRITE : Notification.Kind.READ, transferId,
                payload);
    }

    /** A transfer's notification was handed to the engine with its transfer. */
    public void sentWithTransfer(String peerId, TransferOp op, long transferId, int bytes) {
        inbox.countSent();
        telemetry.notificationSent(peerId, op == TransferOp.WRITE ? Notification.Kind.WRITE : Notification.Kind.READ,
                transferId, bytes);
    }

    /** Sends a message without a transfer; false when the peer is not registered or refused it. */
    public boolean send(String peerId, byte[] payload) {
        Objects.requireNonNull(peerId, "peerId");
        checkOutgoing(payload);
        state.ensureOpen();
        byte[] copy = payload.clone();
        PeerSlot slot = peers.get(peerId);
        if (slot == null) {
            return false;
        }
        synchronized (slot) {
            state.ensureOpen();
            Registration reg = slot.registration;
            if (reg == null) {
                return false;
            }
            OutboundNotification n = sender.frame(reg, Notification.Kind.MESSAGE, -1, copy);
            try {
                engine.engine().sendNotification(reg.peer(), n);
            } catch (RuntimeException | LinkageError e) {
                health.failed(slot, "notification send", e);
                return false;
            }
        }
        inbox.countSent();
        telemetry.notificationSent(peerId, Notification.Kind.MESSAGE, -1, copy.length);
        return true;
    }

    /** {@link io.blockxfer.transport.DataTransport#pollNotifications(NotificationHandler)}. */
    public int poll(NotificationHandler handler) {
        return waits.poll(handler);
    }

    /** {@link io.blockxfer.transport.DataTransport#pollNotifications(NotificationHandler, long, TimeUnit)}. */
    public int poll(NotificationHandler handler, long timeout, TimeUnit unit) throws InterruptedException {
        return waits.poll(handler, timeout, unit);
    }

    /** {@link io.blockxfer.transport.DataTransport#notifications()}. */
    public Flow.Publisher<Notification> publisher() {
        state.ensureOpen();
        return publisher;
    }

    /** The counts now. */
    public NotificationStats stats() {
        return inbox.stats();
    }

    /** The transport closed: discards what is queued and completes the subscriber. */
    public void close() {
        int discarded = inbox.close();
        publisher.close();
        telemetry.notificationsDiscarded(discarded);
    }
}
