package io.blockxfer.holds.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import org.jspecify.annotations.Nullable;

/** JFR: a hold message, or one hold id in it, was refused. Not thread-safe (one instance per event). */
@Name("blockxfer.HoldMessageRefused")
@Label("Hold Message Refused")
@Category({"blockxfer", "Holds"})
@Description("A hold message was refused: malformed, unauthenticated, stale (its hold ended or is unknown) or from"
        + " a peer other than the hold's")
@StackTrace(false)
public final class HoldMessageRefusedEvent extends jdk.jfr.Event {
    @Label("Agent") public @Nullable String agent;
    @Label("Sender") public @Nullable String sender;
    @Label("Why") public @Nullable String why;
    @Label("Hold Id") public long holdId;
}
