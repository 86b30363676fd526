package io.blockxfer.transport.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * JFR: a transfer was submitted. Off by default (every submit of a busy transport would be an
 * event); enable it in the recording settings when tracing single transfers. Not thread-safe (one
 * instance per event).
 */
@Name("blockxfer.TransferSubmitted")
@Label("Transfer Submitted")
@Category({"blockxfer", "Transfers"})
@Description("A WRITE or READ of blocks was submitted to a peer")
@StackTrace(false)
@Enabled(false)
public final class TransferSubmittedEvent extends TransferEvent {
}
