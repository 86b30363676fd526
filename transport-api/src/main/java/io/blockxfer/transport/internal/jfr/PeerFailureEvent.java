package io.blockxfer.transport.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** JFR: a peer started failing or recovered. Not thread-safe (one instance per event). */
@Name("blockxfer.PeerFailure")
@Label("Peer Failure")
@Category({"blockxfer", "Peers"})
@Description("A peer changed between healthy and failing (native errors, missed deadline, death)")
@StackTrace(false)
public final class PeerFailureEvent extends jdk.jfr.Event {
    @Label("Backend") public String backend;
    @Label("Agent") public String agent;
    @Label("Peer") public String peer;
    @Label("Failing") public boolean failing;
    @Label("Reason") public String reason;
}
