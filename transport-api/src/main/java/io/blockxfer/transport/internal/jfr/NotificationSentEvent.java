package io.blockxfer.transport.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * JFR: a notification was handed to the backend, with a transfer or on its own. Off by default
 * (one per notified transfer); enable it when tracing. Not thread-safe (one instance per event).
 */
@Name("blockxfer.NotificationSent")
@Label("Notification Sent")
@Category({"blockxfer", "Notifications"})
@Description("A notification was handed to the backend; Peer is the addressee")
@StackTrace(false)
@Enabled(false)
public final class NotificationSentEvent extends NotificationEvent {
}
