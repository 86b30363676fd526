package io.blockxfer.directory.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import org.jspecify.annotations.Nullable;

/** JFR: a directory entry was refused. Not thread-safe (one instance per event). */
@Name("blockxfer.MemberRefused")
@Label("Member Refused")
@Category({"blockxfer", "Membership"})
@Description("A directory entry failed a check (key ring, format, size, key, epoch, compatibility); nothing reached"
        + " the transport")
@StackTrace(false)
public final class MemberRefusedEvent extends jdk.jfr.Event {
    @Label("Self") public @Nullable String self;
    @Label("Key") public @Nullable String key;
    @Label("Member") public @Nullable String member;
    @Label("Reason") public @Nullable String reason;
    @Label("Message") public @Nullable String message;
    @Label("Revision") public long revision;
}
