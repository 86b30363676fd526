package io.blockxfer.directory.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import org.jspecify.annotations.Nullable;

/**
 * JFR: a member was added, updated, re-registered or removed, or failed to register. Not thread-safe
 * (one instance per event).
 */
@Name("blockxfer.MemberChange")
@Label("Member Change")
@Category({"blockxfer", "Membership"})
@Description("A directory member was added to, updated in, re-registered in or removed from a transport, or its"
        + " registration failed")
@StackTrace(false)
public final class MemberChangeEvent extends jdk.jfr.Event {
    @Label("Self") public @Nullable String self;
    @Label("Member") public @Nullable String member;
    @Label("Change") public @Nullable String change;
    @Label("Epoch") public long epoch;
    @Label("Cause") public @Nullable String cause;
}
