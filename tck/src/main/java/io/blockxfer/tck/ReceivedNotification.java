package io.blockxfer.tck;

import io.blockxfer.transport.Notification;
import java.nio.charset.StandardCharsets;

/**
 * One notification as a kit target received it, with what the target found in its blocks at the
 * moment of delivery (see {@link TargetPeer#takeNotifications}).
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param notification the notification
 * @param mismatchedBlock for a payload that asked for a check, the first block that did not yet hold
 *     its bytes, or -1 when all did; -2 when the payload asked for no check
 */
public record ReceivedNotification(Notification notification, long mismatchedBlock) {

    /** The payload as text (the kit's payloads are ASCII). */
    public String text() {
        return new String(notification.payload(), StandardCharsets.ISO_8859_1);
    }
}
