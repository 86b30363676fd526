package io.blockxfer.transport;

/**
 * Receives notifications from {@link DataTransport#pollNotifications(NotificationHandler)} and its
 * waiting form.
 *
 * <p><b>Thread safety:</b> called on the polling thread, one call at a time per poll, after the
 * transport's locks are released; the handler may call back into the transport.
 */
@FunctionalInterface
public interface NotificationHandler {

    /** One notification, delivered to this handler and to nothing else. */
    void onNotification(Notification notification);
}
