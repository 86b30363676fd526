package io.blockxfer.transport.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** JFR: a transfer was reported done or failed. Not thread-safe (one instance per event). */
@Name("blockxfer.TransferEnded")
@Label("Transfer Ended")
@Category({"blockxfer", "Transfers"})
@Description("A transfer reached its terminal report, done or failed")
@StackTrace(false)
public final class TransferEndedEvent extends jdk.jfr.Event {
    @Label("Backend") public String backend;
    @Label("Agent") public String agent;
    @Label("Peer") public String peer;
    @Label("Transfer Id") public long transferId;
    @Label("Operation") public String op;
    @Label("Blocks") public int blocks;
    @Label("Bytes") @DataAmount public long bytes;
    @Label("Latency") @Timespan(Timespan.NANOSECONDS) public long latency;
    @Label("Success") public boolean success;
}
