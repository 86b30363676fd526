package io.blockxfer.holds.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;
import org.jspecify.annotations.Nullable;

/** JFR: a hold ended and its blocks went back to their owner. Not thread-safe (one instance per event). */
@Name("blockxfer.HoldEnded")
@Label("Hold Ended")
@Category({"blockxfer", "Holds"})
@Description("A hold ended (released, abandoned, expired, cancelled, peer removed, closed); its blocks are the"
        + " owner's again")
@StackTrace(false)
public final class HoldEndedEvent extends jdk.jfr.Event {
    @Label("Agent") public @Nullable String agent;
    @Label("Peer") public @Nullable String peer;
    @Label("Hold Id") public long holdId;
    @Label("Reason") public @Nullable String reason;
    @Label("Blocks") public int blocks;
    @Label("Bytes") @DataAmount public long bytes;
    @Label("Held For") @Timespan(Timespan.NANOSECONDS) public long heldFor;
    @Label("Renewals") public long renewals;
}
