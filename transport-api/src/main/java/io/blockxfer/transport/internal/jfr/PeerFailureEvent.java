package io.blockxfer.transport.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import org.jspecify.annotations.Nullable;

/** JFR: a peer started failing or recovered. Not thread-safe (one instance per event). */
@Name("blockxfer.PeerFailure")
@Label("Peer Failure")
@Category({"blockxfer", "Peers"})
@Description("A peer changed between healthy and failing (native errors, missed deadline, death)")
@StackTrace(false)
public final class PeerFailureEvent extends jdk.jfr.Event {
    @Label("Backend") public @Nullable String backend;
    @Label("Agent") public @Nullable String agent;
    @Label("Peer") public @Nullable String peer;
    @Label("Failing") public boolean failing;
    @Label("Reason") public @Nullable String reason;
}
