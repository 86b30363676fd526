package io.blockxfer.directory.internal;

import io.blockxfer.directory.MembershipListener;
import io.blockxfer.directory.Refusal;
import io.blockxfer.directory.internal.jfr.DirectoryConnectionEvent;
import io.blockxfer.directory.internal.jfr.MemberChangeEvent;
import io.blockxfer.directory.internal.jfr.MemberRefusedEvent;
import io.blockxfer.directory.internal.jfr.OwnEntryEvent;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.function.Consumer;
import jdk.jfr.FlightRecorder;

/**
 * The one place a membership reports what it does: its listeners (each call isolated: one that
 * throws is logged and the others still hear), JFR events (built only while a recorder exists) and
 * the log. Listeners and JFR hear of every refusal and every restore of this process's entry; the
 * log hears of them through a {@link LogDigest} each (the first of a quiet interval in full, the
 * others summed up once per {@link #DIGEST_INTERVAL_NANOS}), so that a writer flooding the prefix
 * cannot flood the log.
 *
 * <p><b>Thread safety:</b> called on the membership's thread only.
 */
public final class Signals {

    /** How long a log summary of refusals or overwrites covers: 10 s. */
    public static final long DIGEST_INTERVAL_NANOS = 10_000_000_000L;

    private static final System.Logger LOG = System.getLogger("io.blockxfer.directory.Membership");

    private final String self;
    private final List<MembershipListener> listeners;
    private final SerialLoop loop;
    private final LogDigest refusals = new LogDigest(DIGEST_INTERVAL_NANOS);
    private final LogDigest overwrites = new LogDigest(DIGEST_INTERVAL_NANOS);

    public Signals(String self, List<MembershipListener> listeners, SerialLoop loop) {
        this.self = self;
        this.listeners = List.copyOf(listeners);
        this.loop = loop;
    }

    private static boolean recorder() {
        return FlightRecorder.isInitialized();
    }

    public void started(String prefix) {
        LOG.log(Level.INFO, "membership '" + self + "' started under " + prefix);
        tell("membershipStarted", l -> l.membershipStarted(self, prefix));
    }

    public void published(long epoch) {
        LOG.log(Level.INFO, "membership '" + self + "' published its entry, epoch " + epoch);
        own("published", epoch, null);
        tell("published", l -> l.published(self, epoch));
    }

    public void leaseLost(long epoch, String reason) {
        LOG.log(Level.WARNING, "membership '" + self + "': its entry of epoch " + epoch + " is gone (" + reason
                + "); publishing it again");
        own("lease-lost", epoch, reason);
        tell("leaseLost", l -> l.leaseLost(self, epoch, reason));
    }

    public void superseded(long epoch, long newer, String key) {
        String why = "another process published a valid entry of the newer epoch " + newer + " under '" + key
                + "', this process's member id";
        LOG.log(Level.WARNING, "membership '" + self + "' stopped publishing its entry of epoch " + epoch + ": " + why
                + "; its lease is revoked, and it publishes nothing more (give each process its own id)");
        own("superseded", epoch, why);
        tell("entrySuperseded", l -> l.entrySuperseded(self, epoch, newer));
    }

    public void publishFailed(Throwable cause) {
        LOG.log(Level.WARNING, "membership '" + self + "' could not publish its entry; will retry: " + cause);
        own("publish-failed", 0, String.valueOf(cause));
        tell("publishFailed", l -> l.publishFailed(self, cause));
    }

    public void added(String member, long epoch, boolean update) {
        LOG.log(Level.INFO, "membership '" + self + "' " + (update ? "updated" : "added") + " member '" + member
                + "', epoch " + epoch);
        change(member, update ? "updated" : "added", epoch, null);
        tell(update ? "memberUpdated" : "memberAdded",
                l -> {
                    if (update) {
                        l.memberUpdated(member, epoch);
                    } else {
                        l.memberAdded(member, epoch);
                    }
                });
    }

    public void reRegistered(String member, long epoch) {
        LOG.log(Level.INFO, "membership '" + self + "' re-registered member '" + member + "', epoch " + epoch
                + ": this process's lease was lost, so the others removed it (or will) and tore down their side");
        change(member, "re-registered", epoch, null);
        tell("memberReRegistered", l -> l.memberReRegistered(member, epoch));
    }

    public void removed(String member, long epoch) {
        LOG.log(Level.INFO, "membership '" + self + "' removed member '" + member + "', epoch " + epoch);
        change(member, "removed", epoch, null);
        tell("memberRemoved", l -> l.memberRemoved(member, epoch));
    }

    public void released(String member, long epoch, String why) {
        LOG.log(Level.INFO, "membership '" + self + "' released member '" + member + "'"
                + (epoch == 0 ? "" : ", epoch " + epoch) + ": " + why);
        change(member, "released", epoch, why);
        tell("memberReleased", l -> l.memberReleased(member, epoch, why));
    }

    public void registrationFailed(String member, long epoch, Throwable cause) {
        LOG.log(Level.WARNING, "membership '" + self + "' could not register member '" + member + "', epoch " + epoch
                + ": " + cause);
        change(member, "registration-failed", epoch, String.valueOf(cause));
        tell("registrationFailed", l -> l.registrationFailed(member, epoch, cause));
    }

    /** An entry was refused: told to listeners and JFR; logged through the refusals' digest. */
    public void refused(Refusal r) {
        refused(r, true);
    }

    /**
     * As {@link #refused(Refusal)}; {@code log}: false for a refusal of an entry under this
     * process's own key, which {@link #restored} logs once the entry is restored.
     */
    public void refused(Refusal r, boolean log) {
        if (log && refusals.add(loop.ticker().nanos(), r.reason().name(), r.key())) {
            var unused = loop.schedule(this::flushRefusals, refusals.intervalNanos());
            LOG.log(Level.WARNING, "membership '" + self + "' refused the entry under '" + r.key() + "' ("
                    + r.reason() + "): " + r.message() + "; further refusals are summed up every "
                    + seconds(refusals) + " s");
        }
        if (recorder()) {
            MemberRefusedEvent e = new MemberRefusedEvent();
            if (e.shouldCommit()) {
                e.self = self;
                e.key = r.key();
                e.member = r.memberId();
                e.reason = r.reason().name();
                e.message = r.message();
                e.revision = r.revision();
                e.commit();
            }
        }
        tell("refused", l -> l.refused(r));
    }

    private void flushRefusals() {
        LogDigest.Summary s = refusals.flush(loop.ticker().nanos());
        if (s == null) {
            return;
        }
        var unused = loop.schedule(this::flushRefusals, refusals.intervalNanos());
        LOG.log(Level.WARNING, "membership '" + self + "' refused " + LogDigest.grouped(s.count()) + " more entries in"
                + " the last " + s.seconds() + " s (" + s.kinds() + "), under " + s.keys() + "; each is told to the"
                + " listeners and recorded as a JFR blockxfer.MemberRefused event");
    }

    /**
     * This process's entry of {@code epoch} was written again under its lease after it had been
     * {@code what} ({@code kind}: the refusal reason of what had been written over it, or
     * {@code DELETED}): told to listeners and JFR; logged through the overwrites' digest.
     */
    public void restored(long epoch, String kind, String key, String what) {
        if (overwrites.add(loop.ticker().nanos(), kind, key)) {
            var unused = loop.schedule(this::flushOverwrites, overwrites.intervalNanos());
            LOG.log(Level.WARNING, "membership '" + self + "': its entry under '" + key + "' was " + what
                    + "; restored it under its own lease (epoch " + epoch + " stays, nothing torn down); further"
                    + " restores are summed up every " + seconds(overwrites) + " s");
        }
        own("restored", epoch, kind + ": " + what);
        tell("entryRestored", l -> l.entryRestored(self, epoch, what));
    }

    private void flushOverwrites() {
        LogDigest.Summary s = overwrites.flush(loop.ticker().nanos());
        if (s == null) {
            return;
        }
        var unused = loop.schedule(this::flushOverwrites, overwrites.intervalNanos());
        LOG.log(Level.WARNING, "membership '" + self + "' restored its entry " + LogDigest.grouped(s.count())
                + " more times in the last " + s.seconds() + " s, each after someone else overwrote or deleted it ("
                + s.kinds() + "); at most " + MembershipCore.MAX_RESTORES_PER_SECOND + " restores a second");
    }

    private static long seconds(LogDigest d) {
        return d.intervalNanos() / 1_000_000_000L;
    }

    public void disconnected(String reason) {
        LOG.log(Level.WARNING, "membership '" + self + "' lost the directory (" + reason + "); peers stay as they"
                + " are until it returns");
        connection("disconnected", 0, reason);
        tell("disconnected", l -> l.disconnected(reason));
    }

    public void reconnected(long revision, boolean resync) {
        LOG.log(Level.INFO, "membership '" + self + "' is back on the directory at revision " + revision
                + (resync ? " (resync)" : ""));
        connection(resync ? "resynced" : "resumed", revision, null);
        tell("reconnected", l -> l.reconnected(revision, resync));
    }

    private void change(String member, String what, long epoch, @org.jspecify.annotations.Nullable String cause) {
        if (recorder()) {
            MemberChangeEvent e = new MemberChangeEvent();
            if (e.shouldCommit()) {
                e.self = self;
                e.member = member;
                e.change = what;
                e.epoch = epoch;
                e.cause = cause;
                e.commit();
            }
        }
    }

    private void own(String what, long epoch, @org.jspecify.annotations.Nullable String reason) {
        if (recorder()) {
            OwnEntryEvent e = new OwnEntryEvent();
            if (e.shouldCommit()) {
                e.self = self;
                e.change = what;
                e.epoch = epoch;
                e.reason = reason;
                e.commit();
            }
        }
    }

    private void connection(String what, long revision, @org.jspecify.annotations.Nullable String reason) {
        if (recorder()) {
            DirectoryConnectionEvent e = new DirectoryConnectionEvent();
            if (e.shouldCommit()) {
                e.self = self;
                e.change = what;
                e.revision = revision;
                e.reason = reason;
                e.commit();
            }
        }
    }

    private void tell(String callback, Consumer<MembershipListener> call) {
        for (MembershipListener l : listeners) {
            try {
                call.accept(l);
            } catch (VirtualMachineError e) {
                throw e;
            } catch (RuntimeException | Error e) {
                LOG.log(Level.WARNING, "membership '" + self + "': listener " + l + " threw from " + callback
                        + "; going on", e);
            }
        }
    }
}
