package io.blockxfer.transport.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** JFR: a peer was removed or replaced. Not thread-safe (one instance per event). */
@Name("blockxfer.PeerRemoved")
@Label("Peer Removed")
@Category({"blockxfer", "Peers"})
@Description("A peer registration was taken out of service")
@StackTrace(false)
public final class PeerRemovedEvent extends jdk.jfr.Event {
    @Label("Backend") public String backend;
    @Label("Agent") public String agent;
    @Label("Peer") public String peer;
    @Label("Reason") public String reason;
    @Label("Ended Transfers") public int endedTransfers;
}
