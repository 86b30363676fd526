package io.blockxfer.transport.internal.notify;

import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.Notification;
import io.blockxfer.transport.internal.Registration;
import io.blockxfer.transport.spi.OutboundNotification;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Builds the frames a transport sends: its identity and agent name, the registration's stream and
 * next sequence number, and, with a key ring, the MAC.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class NotificationSender {

    private final long identity;
    private final String agentName;
    private final @Nullable DeploymentKeyRing ring;
    private final LongSupplier clockMillis;

    /** @param identity this transport's identity ({@link NotificationFrames#identityOf}) */
    public NotificationSender(long identity, String agentName, @Nullable DeploymentKeyRing ring,
            LongSupplier clockMillis) {
        this.identity = identity;
        this.agentName = agentName;
        this.ring = ring;
        this.clockMillis = clockMillis;
    }

    /** A notification to {@code to}; the payload was checked and is not copied. */
    public OutboundNotification frame(Registration to, Notification.Kind kind, long transferId, byte[] payload) {
        byte[] frame = NotificationFrames.encode(kind, identity, to.identity(), to.notificationStream(),
                to.nextNotification(), transferId, clockMillis.getAsLong(), agentName, payload, ring);
        return new OutboundNotification(frame, payload);
    }
}
