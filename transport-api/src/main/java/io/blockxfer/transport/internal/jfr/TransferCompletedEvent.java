package io.blockxfer.transport.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Throttle;
import jdk.jfr.Timespan;

/**
 * JFR: a transfer was reported done. Throttled to 1000 events a second by default (the
 * {@code throttle} setting; {@code off} records every transfer). Not thread-safe (one instance per
 * event).
 */
@Name("blockxfer.TransferCompleted")
@Label("Transfer Completed")
@Throttle("1000/s")
@Category({"blockxfer", "Transfers"})
@Description("A transfer was reported done, with its latency from submit to the poll that found it")
@StackTrace(false)
public final class TransferCompletedEvent extends TransferEvent {
    @Label("Latency") @Timespan(Timespan.NANOSECONDS) public long latency;
}
