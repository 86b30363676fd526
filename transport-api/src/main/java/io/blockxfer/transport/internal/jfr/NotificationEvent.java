package io.blockxfer.transport.internal.jfr;

import jdk.jfr.DataAmount;
import jdk.jfr.Label;
import org.jspecify.annotations.Nullable;

/** The fields every per-notification JFR event carries. Not thread-safe (one instance per event). */
public abstract class NotificationEvent extends jdk.jfr.Event {
    @Label("Backend") public @Nullable String backend;
    @Label("Agent") public @Nullable String agent;
    @Label("Peer") public @Nullable String peer;
    @Label("Kind") public @Nullable String kind;
    @Label("Transfer Id") public long transferId;
    @Label("Payload") @DataAmount public int bytes;
}
