package io.blockxfer.transport.internal.jfr;

import jdk.jfr.DataAmount;
import jdk.jfr.Label;

/** The fields every per-transfer JFR event carries. Not thread-safe (one instance per event). */
public abstract class TransferEvent extends jdk.jfr.Event {
    @Label("Backend") public String backend;
    @Label("Agent") public String agent;
    @Label("Peer") public String peer;
    @Label("Transfer Id") public long transferId;
    @Label("Operation") public String op;
    @Label("Blocks") public int blocks;
    @Label("Bytes") @DataAmount public long bytes;
}
