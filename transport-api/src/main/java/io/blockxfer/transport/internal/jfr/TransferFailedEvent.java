package io.blockxfer.transport.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** JFR: a transfer was reported failed; every failure is recorded. Not thread-safe (one instance per event). */
@Name("blockxfer.TransferFailed")
@Label("Transfer Failed")
@Category({"blockxfer", "Transfers"})
@Description("A transfer was reported failed: a native error, a dead peer, a missed deadline or a removal")
@StackTrace(false)
public final class TransferFailedEvent extends TransferEvent {
    @Label("Latency") @Timespan(Timespan.NANOSECONDS) public long latency;
}
