package io.blockxfer.holds.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;
import org.jspecify.annotations.Nullable;

/** JFR: an owner created a hold. Off unless enabled. Not thread-safe (one instance per event). */
@Name("blockxfer.HoldCreated")
@Label("Hold Created")
@Category({"blockxfer", "Holds"})
@Description("An owner lent blocks to a peer under a hold")
@StackTrace(false)
@Enabled(false)
public final class HoldCreatedEvent extends jdk.jfr.Event {
    @Label("Agent") public @Nullable String agent;
    @Label("Peer") public @Nullable String peer;
    @Label("Hold Id") public long holdId;
    @Label("Blocks") public int blocks;
    @Label("Bytes") @DataAmount public long bytes;
    @Label("TTL") @Timespan(Timespan.NANOSECONDS) public long ttl;
}
