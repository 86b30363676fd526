package io.blockxfer.transport.internal.jfr;

import jdk.jfr.DataAmount;
import jdk.jfr.Label;
import org.jspecify.annotations.Nullable;

/** The fields every per-transfer JFR event carries. Not thread-safe (one instance per event). */
public abstract class TransferEvent extends jdk.jfr.Event {
    @Label("Backend") public @Nullable String backend;
    @Label("Agent") public @Nullable String agent;
    @Label("Peer") public @Nullable String peer;
    @Label("Transfer Id") public long transferId;
    @Label("Operation") public @Nullable String op;
    @Label("Blocks") public int blocks;
    @Label("Bytes") @DataAmount public long bytes;
}
