package io.blockxfer.directory.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import org.jspecify.annotations.Nullable;

/** JFR: a membership's watch lost the directory, or came back. Not thread-safe (one instance per event). */
@Name("blockxfer.DirectoryConnection")
@Label("Directory Connection")
@Category({"blockxfer", "Membership"})
@Description("A membership's watch of the directory was disconnected, resumed or resynced")
@StackTrace(false)
public final class DirectoryConnectionEvent extends jdk.jfr.Event {
    @Label("Self") public @Nullable String self;
    @Label("Change") public @Nullable String change;
    @Label("Revision") public long revision;
    @Label("Reason") public @Nullable String reason;
}
