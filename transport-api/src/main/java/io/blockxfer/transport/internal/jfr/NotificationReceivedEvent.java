package io.blockxfer.transport.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * JFR: a notification passed its checks and was queued for the receiver. Off by default (one per
 * notification); enable it when tracing. Not thread-safe (one instance per event).
 */
@Name("blockxfer.NotificationReceived")
@Label("Notification Received")
@Category({"blockxfer", "Notifications"})
@Description("A notification was received and queued; Peer is the sender as the receiver knows it")
@StackTrace(false)
@Enabled(false)
public final class NotificationReceivedEvent extends NotificationEvent {
}
