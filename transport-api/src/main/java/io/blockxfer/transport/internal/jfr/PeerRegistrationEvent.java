package io.blockxfer.transport.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import org.jspecify.annotations.Nullable;

/** JFR: a peer registration, timed. Not thread-safe (one instance per event). */
@Name("blockxfer.PeerRegistration")
@Label("Peer Registration")
@Category({"blockxfer", "Peers"})
@Description("Registering a peer: native connection and descriptor preparation")
@StackTrace(false)
public final class PeerRegistrationEvent extends jdk.jfr.Event {
    @Label("Backend") public @Nullable String backend;
    @Label("Agent") public @Nullable String agent;
    @Label("Peer") public @Nullable String peer;
    @Label("Blocks") public int blocks;
    @Label("Outcome") public @Nullable String outcome;
}
