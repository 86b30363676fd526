package io.blockxfer.tck;

import static io.blockxfer.tck.ConformanceRules.T1;
import static io.blockxfer.tck.ConformanceRules.T2;
import static io.blockxfer.tck.ConformanceRules.T3;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.ProgressMode;
import io.blockxfer.transport.spi.ManagedTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Assumptions;

/**
 * T: what a backend promises about time beyond the transfer deadline. In the polling-thread mode
 * a caller's polls drive its transfers (T1); a full internal queue slows the submitter, bounded,
 * and never fails its transfer (T2); a transfer's deadline runs from its own submit, whatever its
 * neighbours do (T3). T1 and T2 need what the backend declares ({@link TckDeclarations}), T2 a
 * target that can be held, T3 initiator faults; each is skipped with the reason where it lacks it.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class TimelinessRules extends RuleGroup {

    /** How many one-block transfers T1 times; their median must be within the bound. */
    private static final int TIMED = 15;
    /** How late after its deadline the first poll may report an overdue transfer (as in F2). */
    private static final long DEADLINE_SLACK_NANOS = 250_000_000L;

    TimelinessRules(TransportConformanceSuite suite) {
        super(suite);
    }

    @RuleTest(T1)
    public final void t1_pollsAloneDriveTransfers() {
        Fixture fx = fx();
        TckDeclarations declared = fx.harness.declarations();
        Optional<ProgressMode> mode = declared.effectiveMode(fx.harness.progressMode());
        Assumptions.assumeTrue(mode.isPresent(), () -> fx.msg("skipped: the transports run in AUTO mode, and the"
                + " backend does not declare which mode AUTO picks (TckDeclarations.progressModes)"));
        Assumptions.assumeTrue(mode.get() == ProgressMode.POLLING_THREAD, () -> fx.msg("skipped: the transports run"
                + " in " + mode.get() + " mode; the rule is about " + ProgressMode.POLLING_THREAD));
        Optional<Duration> declaredBound = declared.pollingThreadBound();
        Assumptions.assumeTrue(declaredBound.isPresent(), () -> fx.msg("skipped: the backend declares no"
                + " polling-thread bound (TckDeclarations.pollingThreadBound)"));
        Duration bound = declaredBound.orElseThrow();
        PollWork work = new PollWork(Thread.currentThread());
        DataTransport t = ManagedTransport.withEngineDecorator(work.decorator(), fx::initiator);
        TargetPeer a = fx.connectedTarget(t, "a");
        List<Long> warm = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            warm.add(fx.write(t, "a", i, i));
        }
        fx.assertAllDone(fx.await(t, "a", warm));
        long[] tookNanos = new long[TIMED];
        long eventsBefore = work.events();
        long callsBefore = work.calls();
        for (int i = 0; i < TIMED; i++) {
            int block = 8 + i;
            long start = System.nanoTime();
            long id = fx.write(t, "a", block, block);
            Boolean done = null;
            while (done == null) {
                PollResult r = fx.poll(t, "a");
                for (int k = 0; k < r.doneCount() + r.failedCount(); k++) {
                    long got = k < r.doneCount() ? r.doneId(k) : r.failedId(k - r.doneCount());
                    if (got != id) {
                        fail(fx.msg("poll('a') reported transfer " + got + ", which it does not owe (only " + id
                                + " is in flight)"));
                    }
                    done = k < r.doneCount();
                }
                if (done == null && System.nanoTime() - start > fx.env.timeout().toNanos()) {
                    fail(fx.msg("transfer " + id + " was not reported within " + fx.env.timeout().toMillis()
                            + " ms of polling without pause"));
                }
                Thread.onSpinWait();
            }
            tookNanos[i] = System.nanoTime() - start;
            if (!done) {
                fail(fx.msg("transfer " + id + ", a one-block WRITE, failed"));
            }
            fx.assertTargetBlock(a, block, BlockPattern.seed(Fixture.LOCAL, block), "transfer " + id);
        }
        long[] sorted = tookNanos.clone();
        Arrays.sort(sorted);
        long median = sorted[TIMED / 2];
        if (median > bound.toNanos()) {
            fail(fx.msg("with its caller polling without pause, a one-block transfer took " + micros(median)
                    + " us (the median of " + TIMED + ": " + Arrays.stream(tookNanos).mapToObj(TimelinessRules::micros)
                    .toList() + " us), more than the declared polling-thread bound of " + bound.toMillis() + " ms: in"
                    + " the polling-thread mode the caller's polls must drive the transfers, not the backend's"
                    + " fallback thread"));
        }
        long calls = work.calls() - callsBefore;
        long events = work.events() - eventsBefore;
        if (declared.isPollWorkInStatus()) {
            System.out.println(fx.msg("the backend declares that its polls work inside its status call: their"
                    + " work is not counted (" + calls + " progress calls on the polling thread, " + events
                    + " events)"));
        } else if (!work.attached()) {
            System.out.println(fx.msg("the initiator's engine did not pass through the kit's counter (a transport"
                    + " not built on ManagedTransport, or built on another thread): the polls' work is not counted"));
        } else if (events == 0) {
            fail(fx.msg("the polling thread's " + calls + " polls of " + TIMED + " one-block transfers drove no"
                    + " work (TransferEngine.progress returned 0 events every time): every transfer was ended by"
                    + " another thread, however soon; in the polling-thread mode the caller's polls must drive the"
                    + " transfers (a backend whose polls work inside its status call declares"
                    + " TckDeclarations.pollsWorkInStatus)"));
        }
    }

    private static long micros(long nanos) {
        return nanos / 1_000;
    }

    @RuleTest(T2)
    public final void t2_aFullQueueSlowsTheSubmitter() {
        Fixture fx = fx();
        TckDeclarations declared = fx.harness.declarations();
        OptionalInt declaredCapacity = declared.queueCapacity();
        Assumptions.assumeTrue(declaredCapacity.isPresent(), () -> fx.msg("skipped: the backend declares no queue"
                + " capacity (TckDeclarations.queueCapacity)"));
        int capacity = declaredCapacity.getAsInt();
        Duration bound = declared.submitBound().orElseThrow();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        requireStall(a);
        fx.assertAllDone(fx.await(t, "a", List.of(fx.write(t, "a", 0, 0))));
        int n = capacity + Math.max(1024, capacity / 16);
        long[] ids = new long[n];
        fx.stall(a);
        long[] slowest = new long[1];
        fx.within(bound.multipliedBy(2).plus(fx.env.timeout()), n + " submits to a held target", () -> {
            int[] local = new int[1];
            int[] remote = new int[1];
            for (int i = 0; i < n; i++) {
                local[0] = i % Fixture.BLOCKS;
                remote[0] = i % Fixture.BLOCKS;
                long start = System.nanoTime();
                long id = t.writeBlocks("a", local, remote);
                long took = System.nanoTime() - start;
                if (id == DataTransport.NOT_SUBMITTED || id < 0) {
                    fail(fx.msg("submit " + (i + 1) + " of " + n + " to a held target (declared queue capacity "
                            + capacity + ") returned " + id + " instead of a transfer id"));
                }
                if (i > 0 && id <= ids[i - 1]) {
                    fail(fx.msg("submit " + (i + 1) + " returned id " + id + " after " + ids[i - 1]));
                }
                if (took > bound.toNanos()) {
                    fail(fx.msg("submit " + (i + 1) + " of " + n + " to a held target took " + took / 1_000_000
                            + " ms, longer than the declared bound of " + bound.toMillis() + " ms for a submit waiting"
                            + " for room in a full queue"));
                }
                slowest[0] = Math.max(slowest[0], took);
                ids[i] = id;
            }
            return null;
        });
        fx.thaw(a);
        List<Long> all = Arrays.stream(ids).boxed().toList();
        Map<Long, Boolean> outcomes = fx.await(t, "a", all, fx.env.timeout().multipliedBy(2));
        outcomes.forEach((id, done) -> {
            if (!done) {
                fail(fx.msg("transfer " + id + ", one of " + n + " submitted to a held target past the declared queue"
                        + " capacity of " + capacity + ", was reported failed: a full queue must slow the submitter"
                        + " (the slowest submit took " + slowest[0] / 1_000 + " us), not fail the transfer"));
            }
        });
        for (int b = 0; b < Fixture.BLOCKS; b++) {
            fx.assertTargetBlock(a, b, BlockPattern.seed(Fixture.LOCAL, b), "the transfers to block " + b);
        }
        fx.assertQuiet(t, null, "after every transfer was reported");
    }

    @RuleTest(T3)
    public final void t3_deadlineRunsFromItsOwnSubmit() {
        Fixture fx = fx();
        DataTransport t = fx.initiator(fx.deadlineConfig());
        TargetPeer a = fx.connectedTarget(t, "a");
        Optional<InitiatorFaults> maybeFaults = fx.faults(t);
        Assumptions.assumeTrue(maybeFaults.isPresent(), () -> fx.msg("skipped: no initiator faults in this harness,"
                + " so no transfer can be held for a chosen time (FAULT_INJECTION or InJvmHarness.withEngineFaults)"));
        InitiatorFaults faults = maybeFaults.orElseThrow();
        long d = fx.env.deadline().toNanos();
        // the stream: a transfer every tenth of the deadline, each held for three tenths and
        // submitted before the poll that follows it, so the peer is never idle from the first one
        // on and its in-flight bookkeeping keeps moving around the two held transfers
        long streamEvery = d / 10;
        Duration streamHold = Duration.ofNanos(d * 3 / 10);
        Duration shortHold = Duration.ofNanos(d * 6 / 10);
        Duration longHold = Duration.ofNanos(2 * d).plusMillis(500);
        long start = System.nanoTime();
        long longAt = start + d / 2;
        long shortAt = start + d * 6 / 10;
        Map<Long, Integer> stream = new LinkedHashMap<>();
        Map<Long, Boolean> outcomes = new HashMap<>();
        Map<Long, Long> reportedAt = new HashMap<>();
        long longId = -1;
        long shortId = -1;
        long longBefore = 0;
        long longAfter = 0;
        long shortBefore = 0;
        int next = 0;
        long nextStream = start;
        while (longId < 0 || shortId < 0 || !outcomes.containsKey(longId) || !outcomes.containsKey(shortId)) {
            long now = System.nanoTime();
            if (longId < 0 && now - longAt >= 0) {
                faults.delayCompletions(longHold);
                longBefore = System.nanoTime();
                longId = fx.write(t, "a", 41, 41);
                longAfter = System.nanoTime();
            }
            if (shortId < 0 && now - shortAt >= 0) {
                faults.delayCompletions(shortHold);
                shortBefore = System.nanoTime();
                shortId = fx.write(t, "a", 40, 40);
            }
            if ((longId < 0 || !outcomes.containsKey(longId)) && now - nextStream >= 0) {
                faults.delayCompletions(streamHold);
                int block = next++ % 32;
                stream.put(fx.write(t, "a", block, block), block);
                nextStream = now + streamEvery;
            }
            long pollStart = System.nanoTime();
            PollResult r = fx.poll(t, "a");
            List<Long> failedNow = new ArrayList<>();
            for (int k = 0; k < r.doneCount() + r.failedCount(); k++) {
                boolean done = k < r.doneCount();
                long id = done ? r.doneId(k) : r.failedId(k - r.doneCount());
                if (outcomes.put(id, done) != null) {
                    fail(fx.msg("transfer " + id + " reported twice"));
                }
                reportedAt.put(id, System.nanoTime());
                if (id != longId && id != shortId && !stream.containsKey(id)) {
                    fail(fx.msg("poll('a') reported transfer " + id + ", which it does not owe"));
                }
                if (!done && stream.containsKey(id)) {
                    failedNow.add(id);
                }
            }
            // once the overdue transfer failed, its peer's connection was aborted, and the transfers
            // still in flight beside it may fail with it; before that, none may
            if (!failedNow.isEmpty() && !(longId >= 0 && outcomes.containsKey(longId))) {
                fail(fx.msg("transfers " + failedNow + ", held for " + streamHold.toMillis() + " ms only, were"
                        + " reported failed " + (System.nanoTime() - start) / 1_000_000 + " ms into a stream of"
                        + " completing transfers, before any transfer of their peer was overdue (deadline "
                        + fx.env.deadline().toMillis() + " ms)"));
            }
            if (longId >= 0 && !outcomes.containsKey(longId) && pollStart - (longAfter + d + DEADLINE_SLACK_NANOS) > 0) {
                fail(fx.msg("transfer " + longId + ", held for " + longHold.toMillis() + " ms, longer than its deadline"
                        + " of " + fx.env.deadline().toMillis() + " ms, was still not reported "
                        + (pollStart - longBefore) / 1_000_000 + " ms after its submit, while the transfers submitted"
                        + " after it completed: the first poll after its own deadline must report it failed"));
            }
            if (System.nanoTime() - start > fx.env.timeout().toNanos() + 4 * d) {
                fail(fx.msg("transfers " + longId + " and " + shortId + " were not both reported within "
                        + (fx.env.timeout().toMillis() + 4 * d / 1_000_000) + " ms: " + outcomes));
            }
            LockSupport.parkNanos(100_000);
        }
        faults.delayCompletions(Duration.ZERO);
        long shortTook = (Objects.requireNonNull(reportedAt.get(shortId)) - shortBefore) / 1_000_000;
        if (!Boolean.TRUE.equals(outcomes.get(shortId))) {
            fail(fx.msg("transfer " + shortId + " was held for " + shortHold.toMillis() + " ms, less than its deadline"
                    + " of " + fx.env.deadline().toMillis() + " ms, but was reported failed " + shortTook + " ms after"
                    + " its submit, while the transfers beside it completed: its deadline must run from its own"
                    + " submit"));
        }
        long longTook = Objects.requireNonNull(reportedAt.get(longId)) - longBefore;
        if (Boolean.TRUE.equals(outcomes.get(longId))) {
            fail(fx.msg("transfer " + longId + ", held for " + longHold.toMillis() + " ms, longer than its deadline of "
                    + fx.env.deadline().toMillis() + " ms, was reported done"));
        }
        if (longTook < d) {
            fail(fx.msg("transfer " + longId + " was reported failed " + longTook / 1_000_000 + " ms after its submit,"
                    + " before its deadline of " + fx.env.deadline().toMillis() + " ms"));
        }
        fx.assertTargetBlock(a, 40, BlockPattern.seed(Fixture.LOCAL, 40), "transfer " + shortId);
        // the overdue transfer aborted its peer's connection: what was still in flight may fail
        List<Long> left = stream.keySet().stream().filter(id -> !outcomes.containsKey(id)).toList();
        outcomes.putAll(fx.await(t, "a", left));
        long longReported = Objects.requireNonNull(reportedAt.get(longId));
        for (Map.Entry<Long, Integer> e : stream.entrySet()) {
            long id = e.getKey();
            if (Boolean.TRUE.equals(outcomes.get(id)) && reportedAt.getOrDefault(id, Long.MAX_VALUE) - longReported < 0) {
                fx.assertTargetBlock(a, e.getValue(), BlockPattern.seed(Fixture.LOCAL, e.getValue()), "transfer " + id
                        + ", reported done");
            }
        }
        long holdEnds = longAfter + longHold.toNanos() + 50_000_000L - System.nanoTime();
        if (holdEnds > 0) {
            LockSupport.parkNanos(holdEnds);
        }
        fx.assertQuiet(t, null, "after transfer " + longId + " was failed at its deadline: its late end must never be"
                + " reported");
    }
}
