package io.blockxfer.transport.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import org.jspecify.annotations.Nullable;

/** JFR: a peer was removed or replaced. Not thread-safe (one instance per event). */
@Name("blockxfer.PeerRemoved")
@Label("Peer Removed")
@Category({"blockxfer", "Peers"})
@Description("A peer registration was taken out of service")
@StackTrace(false)
public final class PeerRemovedEvent extends jdk.jfr.Event {
    @Label("Backend") public @Nullable String backend;
    @Label("Agent") public @Nullable String agent;
    @Label("Peer") public @Nullable String peer;
    @Label("Reason") public @Nullable String reason;
    @Label("Ended Transfers") public int endedTransfers;
}
