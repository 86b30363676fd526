package io.blockxfer.transport.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import org.jspecify.annotations.Nullable;

/**
 * JFR: a received notification failed a check (malformed, misdirected, unsigned, forged, replayed,
 * stale) and was not delivered. On by default: it is rare in a healthy deployment. Not thread-safe
 * (one instance per event).
 */
@Name("blockxfer.NotificationRefused")
@Label("Notification Refused")
@Category({"blockxfer", "Notifications"})
@Description("A received notification failed a check and was not delivered")
@StackTrace(false)
public final class NotificationRefusedEvent extends jdk.jfr.Event {
    @Label("Backend") public @Nullable String backend;
    @Label("Agent") public @Nullable String agent;
    @Label("Sender") public @Nullable String sender;
    @Label("Reason") public @Nullable String reason;
}
