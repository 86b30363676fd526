package io.blockxfer.transport.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import org.jspecify.annotations.Nullable;

/** JFR: a cancel call. Not thread-safe (one instance per event). */
@Name("blockxfer.TransferCancel")
@Label("Transfer Cancel")
@Category({"blockxfer", "Transfers"})
@Description("A cancel of transfers, with how many were still in flight")
@StackTrace(false)
public final class TransferCancelledEvent extends jdk.jfr.Event {
    @Label("Backend") public @Nullable String backend;
    @Label("Agent") public @Nullable String agent;
    @Label("Mode") public @Nullable String mode;
    @Label("Ids Asked") public int asked;
    @Label("Cancelled") public int cancelled;
    @Label("Still In Flight") public int stillInFlight;
}
