package io.blockxfer.transport.internal.notify;

import static io.blockxfer.transport.internal.TransportLog.LOG;


import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.Notification;
import io.blockxfer.transport.internal.Telemetry;
import io.blockxfer.transport.spi.NotificationSink;
import java.lang.System.Logger.Level;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The transport's {@link NotificationSink}: checks each message an engine received and queues it
 * in the {@link NotificationInbox}, which wakes waiting callers. A blockxfer frame must be well
 * formed and addressed to this transport; with a key ring it must also be signed by a key of the
 * ring, fresh and not seen before ({@link ReplayGuard}), unless the transport accepts unsigned peers
 * (then an unsigned frame is delivered unauthenticated). A message in no blockxfer format, from a
 * plain NIXL agent, is delivered as {@link Notification.Kind#FOREIGN} only where unsigned peers are
 * accepted (no key ring, or {@code acceptUnsignedPeers}). A refused message is counted, logged at
 * most once a minute per reason, and never delivered.
 *
 * <p><b>Thread safety:</b> thread-safe; {@link #received} never blocks beyond short locks and
 * never throws.
 */
public final class NotificationReceiver implements NotificationSink {

    /** Why a message was refused. */
    public enum Refusal {
        /** Not a well-formed frame, or a foreign message without a sender or too long. */
        MALFORMED,
        /** Addressed to another transport. */
        MISDIRECTED,
        /** Unsigned, or foreign, where a key ring requires a MAC. */
        UNSIGNED,
        /** Signed with a key not in the ring, or changed after signing. */
        FORGED,
        /** Signed, and seen before. */
        REPLAYED,
        /** Signed too long ago (or too far ahead), or older than its stream's window. */
        STALE,
        /** Signed, from a new stream while too many streams are fresh. */
        TOO_MANY_STREAMS
    }

    private static final long LOG_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final long identity;
    private final @Nullable DeploymentKeyRing ring;
    private final boolean acceptUnsigned;
    private final SenderIndex senders;
    private final NotificationInbox inbox;
    private final ReplayGuard replays;
    private final Telemetry telemetry;
    private final String label;
    private final Map<Refusal, Long> lastLogged = new EnumMap<>(Refusal.class);
    /** The agent name of the last frame decoded, reused while frames name the same agent. */
    private volatile @Nullable String lastAgentName;

    /**
     * @param identity this transport's identity ({@link NotificationFrames#identityOf} of its descriptor)
     * @param label how the transport names itself in log lines
     */
    public NotificationReceiver(long identity, @Nullable DeploymentKeyRing ring, boolean acceptUnsigned,
            SenderIndex senders, NotificationInbox inbox, ReplayGuard replays, Telemetry telemetry, String label) {
        this.identity = identity;
        this.ring = ring;
        this.acceptUnsigned = acceptUnsigned;
        this.senders = senders;
        this.inbox = inbox;
        this.replays = replays;
        this.telemetry = telemetry;
        this.label = label;
    }

    @Override
    public void received(byte[] message, @Nullable String peerId, @Nullable String backendName) {
        try {
            receive(message, peerId, backendName);
        } catch (RuntimeException | Error e) {
            inbox.countRefused();
            LOG.log(Level.WARNING, () -> label + ": a received notification could not be handled: " + e);
        }
    }

    private void receive(byte[] message, @Nullable String peerId, @Nullable String backendName) {
        String backendSender = peerId != null ? peerId : backendName;
        if (!NotificationFrames.looksLikeFrame(message)) {
            foreign(message, peerId, backendName);
            return;
        }
        NotificationFrames.Frame frame = NotificationFrames.decode(message, lastAgentName);
        if (frame == null) {
            refuse(Refusal.MALFORMED, backendSender, message.length);
            return;
        }
        lastAgentName = frame.agentName();
        if (frame.receiver() != identity) {
            refuse(Refusal.MISDIRECTED, frame.agentName(), message.length);
            return;
        }
        boolean authenticated = false;
        if (ring != null) {
            if (!frame.signed()) {
                if (!acceptUnsigned) {
                    refuse(Refusal.UNSIGNED, frame.agentName(), message.length);
                    return;
                }
            } else {
                if (!NotificationFrames.authentic(message, frame, ring)) {
                    refuse(Refusal.FORGED, frame.agentName(), message.length);
                    return;
                }
                ReplayGuard.Verdict verdict = replays.check(frame.sender(), frame.stream(), frame.sequence(),
                        frame.sentAtMillis());
                if (verdict != ReplayGuard.Verdict.ACCEPTED) {
                    refuse(switch (verdict) {
                        case REPLAYED -> Refusal.REPLAYED;
                        case TOO_MANY_STREAMS -> Refusal.TOO_MANY_STREAMS;
                        default -> Refusal.STALE;
                    }, frame.agentName(), message.length);
                    return;
                }
                authenticated = true;
            }
        }
        String peer = senders.peerOf(frame.sender());
        queue(peer != null ? peer : frame.agentName(), frame.agentName(), frame.kind(), frame.transferId(),
                frame.payload(), authenticated);
    }

    private void foreign(byte[] message, @Nullable String peerId, @Nullable String backendName) {
        String sender = peerId != null ? peerId : backendName;
        String agent = backendName != null ? backendName : peerId;
        if (sender == null || agent == null || message.length > Notification.MAX_PAYLOAD_BYTES) {
            refuse(Refusal.MALFORMED, sender, message.length);
            return;
        }
        if (ring != null && !acceptUnsigned) {
            refuse(Refusal.UNSIGNED, sender, message.length);
            return;
        }
        queue(sender, agent, Notification.Kind.FOREIGN, -1, message, false);
    }

    private void queue(String sender, String agent, Notification.Kind kind, long transferId, byte[] payload,
            boolean authenticated) {
        NotificationInbox.Offer offer = inbox.offer(sender, agent, kind, transferId, payload, authenticated);
        switch (offer) {
            case QUEUED -> telemetry.notificationReceived(sender, kind, transferId, payload.length); // the inbox woke waiters
            case DROPPED -> telemetry.notificationDropped(sender);
            case CLOSED -> { }
        }
    }

    private void refuse(Refusal reason, @Nullable String sender, int bytes) {
        inbox.countRefused();
        telemetry.notificationRefused(sender == null ? "?" : sender, reason.name());
        long now = System.nanoTime();
        boolean log;
        synchronized (lastLogged) {
            Long last = lastLogged.get(reason);
            log = last == null || now - last > LOG_EVERY_NANOS;
            if (log) {
                lastLogged.put(reason, now);
            }
        }
        if (log) {
            LOG.log(Level.WARNING, () -> label + ": refused a notification of " + bytes + " B from '"
                    + (sender == null ? "?" : sender) + "': " + reason + " (further refusals of this kind in the next"
                    + " minute are only counted: notificationStats().refused())");
        }
    }
}
