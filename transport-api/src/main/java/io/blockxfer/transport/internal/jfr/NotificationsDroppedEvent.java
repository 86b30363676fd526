package io.blockxfer.transport.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import org.jspecify.annotations.Nullable;

/**
 * JFR: received notifications were dropped because the queue was full, or discarded at close; one
 * event per transport at most every 100 ms while drops go on, with the count since the last one.
 * On by default. Not thread-safe (one instance per event).
 */
@Name("blockxfer.NotificationsDropped")
@Label("Notifications Dropped")
@Category({"blockxfer", "Notifications"})
@Description("Received notifications found the queue full (or were still queued at close)")
@StackTrace(false)
public final class NotificationsDroppedEvent extends jdk.jfr.Event {
    @Label("Backend") public @Nullable String backend;
    @Label("Agent") public @Nullable String agent;
    @Label("Count") public long count;
    @Label("At Close") public boolean atClose;
}
