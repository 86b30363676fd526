package io.blockxfer.holds.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import org.jspecify.annotations.Nullable;

/** JFR: a holder's lease ended. Not thread-safe (one instance per event). */
@Name("blockxfer.LeaseEnded")
@Label("Lease Ended")
@Category({"blockxfer", "Holds"})
@Description("A lease on an owner's blocks ended at the holder (released, abandoned, expired by the holder's own"
        + " deadline, revoked or ended by the owner, closed)")
@StackTrace(false)
public final class LeaseEndedEvent extends jdk.jfr.Event {
    @Label("Agent") public @Nullable String agent;
    @Label("Owner") public @Nullable String owner;
    @Label("Hold Id") public long holdId;
    @Label("Reason") public @Nullable String reason;
    @Label("Blocks") public int blocks;
    @Label("Transfers Refused") public long transfersRefused;
}
