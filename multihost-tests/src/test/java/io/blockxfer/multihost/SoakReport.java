package io.blockxfer.multihost;

import io.blockxfer.tck.process.UcxShmFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The verdict and the figures of one service soak: {@code report.md} for people and
 * {@code result.txt} ({@code key=value} lines) for the test that runs the soak.
 *
 * <p>The soak fails unless every id ended exactly once (none lost, none reported twice, none
 * reported to another peer's poll, the ledger agrees with the sums), no byte was wrong (in any
 * completed READ, in any read-back of a completed WRITE, and in the targets' memory against the
 * model), no session crashed, every re-add of a live peer succeeded, every killed peer came back
 * with its new descriptor and worked, no registered peer went a liveness window without a verified
 * transfer, every child process has ended, no UCX POSIX segment of ours is left, and the
 * initiator's descriptors, threads, RSS and shared-memory mappings stayed within their bounds over
 * the second half.
 *
 * <p><b>Thread safety:</b> not thread-safe; built once at the end of a run.
 */
final class SoakReport {

    /** A restarted incarnation younger than this at the end is not judged on whether it worked. */
    static final long YOUNGEST_JUDGED_MILLIS = 2_000;

    private final SoakSettings settings;
    private final SoakConductor conductor;
    private final double seconds;
    private final List<Trend> trends;
    private final UcxShmFiles.Sweep killedSweep;
    private final UcxShmFiles.Sweep finalSweep;
    private final List<Path> shmLeft;
    private final List<Long> childPids;
    private final List<Long> childrenAlive;
    private final long forcedAtClose;
    private final long closeMillis;
    private final List<String> failures = new ArrayList<>();

    SoakReport(SoakSettings settings, SoakConductor conductor, double seconds, List<Trend> trends,
            UcxShmFiles.Sweep finalSweep, List<Path> shmLeft, List<Long> childPids, List<Long> childrenAlive,
            long forcedAtClose, long closeMillis) {
        this.settings = settings;
        this.conductor = conductor;
        this.seconds = seconds;
        this.trends = List.copyOf(trends);
        this.killedSweep = conductor.kills().stream().map(k -> k.shm).reduce(UcxShmFiles.Sweep.NONE,
                UcxShmFiles.Sweep::plus);
        this.finalSweep = finalSweep;
        this.shmLeft = List.copyOf(shmLeft);
        this.childPids = List.copyOf(childPids);
        this.childrenAlive = List.copyOf(childrenAlive);
        this.forcedAtClose = forcedAtClose;
        this.closeMillis = closeMillis;
        judge();
    }

    private void judge() {
        SoakTally t = conductor.tally();
        check(t.lost == 0, t.lost + " ids were never reported");
        check(t.dup == 0, t.dup + " ids were reported twice");
        check(t.foreign == 0, t.foreign + " ids were reported to a poll of another peer (or never submitted)");
        check(t.submitted == t.done + t.failed + t.lost, "submitted " + t.submitted + " != done " + t.done
                + " + failed " + t.failed + " + lost " + t.lost);
        check(conductor.ledger().count() == t.done + t.failed, "the ledger holds " + conductor.ledger().count()
                + " distinct reported ids, the sessions counted " + (t.done + t.failed) + " reports");
        check(t.mismatches == 0, t.mismatches + " blocks read back with wrong bytes");
        check(conductor.targetMismatches == 0, conductor.targetMismatches
                + " target blocks differ from the initiator's model (or could not be checked)");
        check(t.sessionErrors() == 0, t.sessionErrors() + " sessions ended on an exception");
        check(conductor.addFailures == 0, conductor.addFailures + " re-adds of a live peer failed");
        check(t.done > 0 && t.verifiedBlocks > 0, "no transfer completed and was verified");
        check(conductor.removes > 0 && conductor.adds > 0, "no peer was removed and re-added");
        boolean killsDue = !settings.killInterval().isZero()
                && settings.killInterval().compareTo(settings.duration()) < 0;
        check(!killsDue || !conductor.kills().isEmpty(), "no target was killed");
        for (KillRecord k : conductor.kills()) {
            boolean endedDuringRestart = k.restartError.equals("the run ended during the restart");
            check(k.readdedAtMillis >= 0 || endedDuringRestart, "killed " + k.incarnation + " was not re-added: "
                    + (k.restartError.isEmpty() ? "?" : k.restartError));
            check(!(k.readdedAtMillis >= 0 && k.doneAfter == 0 && k.livedMillis >= YOUNGEST_JUDGED_MILLIS),
                    "the incarnation that replaced " + k.incarnation + " completed no transfer in "
                            + k.livedMillis + " ms");
        }
        check(conductor.stalls == 0, conductor.stalls + " times a registered peer verified no transfer in "
                + settings.livenessWindow().toSeconds() + " s");
        check(conductor.restartFailures == 0, conductor.restartFailures + " restarts failed");
        check(childrenAlive.isEmpty(), "child processes still alive: " + childrenAlive);
        check(shmLeft.isEmpty(), "UCX POSIX segments left: " + shmLeft);
        for (Trend tr : trends) {
            check(tr.flat(), tr.violation());
        }
    }

    private void check(boolean ok, String failure) {
        if (!ok) {
            failures.add(failure);
        }
    }

    boolean passed() {
        return failures.isEmpty();
    }

    List<String> failures() {
        return failures;
    }

    /** The report as Markdown. */
    String markdown() {
        SoakTally t = conductor.tally();
        StringBuilder b = new StringBuilder();
        b.append("# Service soak: ").append(settings.backend()).append(passed() ? " PASSED" : " FAILED").append("\n\n");
        b.append(String.format(Locale.ROOT, "%.0f s; %d targets of %d x %d KiB; churn every %d ms; a kill every %d s;"
                + " transfer deadline %d ms; %d in flight per peer, 1-%d blocks each%n", seconds, settings.targets(),
                settings.targetBlocks(), settings.blockLength() >> 10, settings.churnInterval().toMillis(),
                settings.killInterval().toSeconds(), settings.transferTimeout().toMillis(),
                settings.workload().maxInflight(), settings.workload().maxBlocksPerTransfer()));
        b.append("\nTransport: ").append(settings.profile().description()).append(". Options: ")
                .append(settings.transportOptions()).append(".\n");
        if (!passed()) {
            b.append("\n## Failures\n\n");
            failures.forEach(f -> b.append("- ").append(f).append('\n'));
        }
        b.append("\n## Ids and bytes\n\n");
        b.append(String.format(Locale.ROOT, "- %d transfers submitted in %d session phases: %d done, %d failed,"
                + " %d lost; %d reported twice, %d to the wrong peer; ledger: %d distinct ids%n", t.submitted, t.phases,
                t.done, t.failed, t.lost, t.dup, t.foreign, conductor.ledger().count()));
        b.append(String.format(Locale.ROOT, "- %.2f GiB moved (%.0f transfers/s); %d blocks verified byte for byte,"
                + " %d wrong; %d writes read back (%d completed writes not read back because the peer went away)%n",
                t.bytes / (double) (1L << 30), t.done / seconds, t.verifiedBlocks, t.mismatches, t.verifiedWrites,
                t.unverifiedWrites));
        b.append(String.format(Locale.ROOT, "- target memory checked against the model %d times (%d blocks), %d"
                + " blocks differ%n", conductor.verifications, conductor.verifiedTargetBlocks,
                conductor.targetMismatches));
        b.append(String.format(Locale.ROOT, "- %d submits refused (peer not registered at that moment)%n",
                t.notSubmitted));
        b.append(String.format(Locale.ROOT, "- transfers done per %d-s window: min %d, max %d over %d windows; windows"
                + " in which a registered peer verified nothing (stalls): %d%n", settings.livenessWindow().toSeconds(),
                conductor.windows == 0 ? 0 : conductor.windowDoneMin, conductor.windowDoneMax, conductor.windows,
                conductor.stalls));
        b.append("\n## Churn\n\n");
        b.append(String.format(Locale.ROOT, "- %d removals, %d re-adds (%d failed); addPeer mean %d us, max %d us;"
                + " removePeer max %d us; the schedule ran late by up to %d ms%n", conductor.removes, conductor.adds,
                conductor.addFailures, conductor.adds == 0 ? 0 : conductor.addMicrosSum / conductor.adds,
                conductor.addMicrosMax, conductor.removeMicrosMax, conductor.tickLateMaxMillis));
        b.append(String.format(Locale.ROOT, "- failed transfers per removal: mean %.1f, max %d%n",
                conductor.removalPhases == 0 ? 0.0 : conductor.removalFailures / (double) conductor.removalPhases,
                conductor.removalFailuresMax));
        b.append(String.format(Locale.ROOT, "- sessions that failed while nobody removed or killed their peer: %d%n",
                conductor.unexplainedFailures));
        b.append("\n## Kills\n\n");
        List<KillRecord> kills = conductor.kills();
        if (kills.isEmpty()) {
            b.append("none\n");
        } else {
            b.append("| killed | pid | first failure after | all reported after | failed | lost | restart ready after"
                    + " | re-added after | done by the new one | shm files left |\n");
            b.append("|---|---|---|---|---|---|---|---|---|---|\n");
            kills.forEach(k -> b.append(k.row()).append('\n'));
            long detected = kills.stream().filter(k -> k.detected).count();
            b.append(String.format(Locale.ROOT, "%n%d kills; the initiator saw %d deaths itself; failed transfers per"
                    + " kill: mean %.1f, max %d%n", kills.size(), detected,
                    kills.stream().mapToLong(k -> k.failed).average().orElse(0),
                    kills.stream().mapToLong(k -> k.failed).max().orElse(0)));
        }
        b.append("\n## Initiator resources (/proc/self)\n\n```\n");
        trends.forEach(tr -> b.append(tr.describe()).append('\n'));
        b.append("```\n");
        b.append("\n## Clean-up\n\n");
        b.append(String.format(Locale.ROOT, "- %d child processes started, every one ended by its pid: %s; %d had to be"
                + " killed at close%n", childPids.size(), childrenAlive.isEmpty() ? "yes" : "NO " + childrenAlive,
                forcedAtClose));
        b.append(String.format(Locale.ROOT, "- UCX POSIX segments left by killed children: %d (%.1f MiB), removed %d;"
                + " left by the others and the initiator at the end: %d, removed %d; still there: %d%n",
                killedSweep.found(), killedSweep.bytes() / 1048576.0, killedSweep.removed(), finalSweep.found(),
                finalSweep.removed(), shmLeft.size()));
        b.append(String.format(Locale.ROOT, "- initiator close took %d ms%n", closeMillis));
        List<String> problems = t.problems();
        List<String> anomalies = conductor.anomalies();
        if (!problems.isEmpty() || !anomalies.isEmpty()) {
            b.append("\n## Events worth a look\n\n");
            anomalies.forEach(a -> b.append("- ").append(a).append('\n'));
            problems.forEach(p -> b.append("- `").append(p).append("`\n"));
        }
        return b.toString();
    }

    /** The machine-readable result. */
    Map<String, String> result() {
        SoakTally t = conductor.tally();
        Map<String, String> r = new LinkedHashMap<>();
        r.put("status", passed() ? "passed" : "failed");
        r.put("backend", settings.backend());
        r.put("seconds", String.format(Locale.ROOT, "%.0f", seconds));
        r.put("submitted", Long.toString(t.submitted));
        r.put("done", Long.toString(t.done));
        r.put("failed", Long.toString(t.failed));
        r.put("lost", Long.toString(t.lost));
        r.put("dup", Long.toString(t.dup));
        r.put("foreign", Long.toString(t.foreign));
        r.put("mismatches", Long.toString(t.mismatches));
        r.put("verifiedBlocks", Long.toString(t.verifiedBlocks));
        r.put("targetMismatches", Long.toString(conductor.targetMismatches));
        r.put("removes", Long.toString(conductor.removes));
        r.put("adds", Long.toString(conductor.adds));
        r.put("addFailures", Long.toString(conductor.addFailures));
        r.put("kills", Long.toString(conductor.kills().size()));
        r.put("killed", conductor.kills().stream().map(k -> k.incarnation).collect(Collectors.joining(",")));
        r.put("readded", Long.toString(conductor.kills().stream().filter(k -> k.readdedAtMillis >= 0).count()));
        r.put("workedAfterRestart", Long.toString(conductor.kills().stream().filter(k -> k.doneAfter > 0).count()));
        r.put("stalls", Long.toString(conductor.stalls));
        r.put("unexplainedFailures", Long.toString(conductor.unexplainedFailures));
        for (Trend tr : trends) {
            r.put(tr.what() + "SlopePerMinute", String.format(Locale.ROOT, "%.3f", tr.slopePerMinute()));
        }
        r.put("childPids", childPids.stream().map(String::valueOf).collect(Collectors.joining(",")));
        r.put("shmLeftByKilled", Integer.toString(killedSweep.found()));
        r.put("shmFiles", conductor.everyTarget().stream().flatMap(x -> x.shmFiles().stream()).map(Path::toString)
                .distinct().collect(Collectors.joining(",")));
        r.put("failures", String.join("; ", failures).replace('\n', ' '));
        return r;
    }

    /** Writes {@code report.md} and {@code result.txt} into {@code dir}. */
    void write(Path dir) throws IOException {
        Files.writeString(dir.resolve("report.md"), markdown());
        StringBuilder b = new StringBuilder();
        result().forEach((k, v) -> b.append(k).append('=').append(v).append('\n'));
        Files.writeString(dir.resolve("result.txt"), b.toString());
    }
}
