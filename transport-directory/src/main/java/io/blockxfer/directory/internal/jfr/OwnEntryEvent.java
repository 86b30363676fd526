package io.blockxfer.directory.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import org.jspecify.annotations.Nullable;

/**
 * JFR: this process's entry was published, lost, restored, superseded by another process's, or
 * failed to publish. Not thread-safe (one per event).
 */
@Name("blockxfer.OwnEntry")
@Label("Own Entry")
@Category({"blockxfer", "Membership"})
@Description("This process's directory entry was published, its lease lost, restored after someone else"
        + " overwrote it, superseded by a newer process under the same member id, or a publication failed")
@StackTrace(false)
public final class OwnEntryEvent extends jdk.jfr.Event {
    @Label("Self") public @Nullable String self;
    @Label("Change") public @Nullable String change;
    @Label("Epoch") public long epoch;
    @Label("Reason") public @Nullable String reason;
}
