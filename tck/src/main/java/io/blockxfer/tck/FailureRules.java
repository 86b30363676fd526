package io.blockxfer.tck;

import static io.blockxfer.tck.ConformanceRules.F1;
import static io.blockxfer.tck.ConformanceRules.F2;
import static io.blockxfer.tck.ConformanceRules.F3;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Assumptions;

/**
 * F: dead peers, frozen peers and the transfer deadline, and native errors as outcomes.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class FailureRules extends RuleGroup {

    FailureRules(TransportConformanceSuite suite) {
        super(suite);
    }

    @RuleTest(F1)
    public final void f1_peerDeath() {
        Fixture fx = fx();
        DataTransport t = fx.initiator(fx.deadlineConfig());
        TargetPeer a = fx.connectedTarget(t, "a");
        TargetPeer b = fx.connectedTarget(t, "b");
        Fixture.Hold hold = fx.hold(t, a);
        long since = System.nanoTime();
        fx.startHolding(hold, t, a);
        List<Long> aIds = new ArrayList<>();
        for (int i = 0; i < (hold == Fixture.Hold.NONE ? 32 : 16); i++) {
            aIds.add(hold == Fixture.Hold.NONE ? fx.write(t, "a", Fixture.range(0, 32), Fixture.range(32, 32))
                    : fx.write(t, "a", Fixture.range(2 * i, 2), Fixture.range(32 + 2 * i, 2)));
        }
        fx.stopDelaying(hold, t);
        List<Long> held = List.copyOf(aIds);
        fx.kill(a);
        long killedAt = System.nanoTime();
        for (int i = 0; i < 8; i++) {
            long id = t.writeBlocks("a", new int[] {i}, new int[] {i});
            if (id != DataTransport.NOT_SUBMITTED) {
                aIds.add(id);
            }
        }
        Duration bound = fx.env.deadline().plus(fx.env.deadline()).plusSeconds(2);
        // a delayed completion holds a transfer only for env.hold() from its submit: it was still
        // held when its peer died, and is still held at the first poll after the deadline, only
        // where killing the target (a close may wait) and the first poll came well before that
        long margin = 250_000_000L;
        boolean heldUntilDeath = hold == Fixture.Hold.STALL || (hold == Fixture.Hold.DELAY
                && fx.env.deadline().toNanos() + margin < fx.env.hold().toNanos()
                && System.nanoTime() - (since + fx.env.hold().toNanos() - margin) < 0);
        Map<Long, Boolean> out = fx.await(t, "a", aIds, bound);
        long tookMillis = (System.nanoTime() - killedAt) / 1_000_000;
        assertTrue(tookMillis <= bound.toMillis(), fx.msg("dead peer's transfers took " + tookMillis + " ms"));
        if (heldUntilDeath) {
            Map<Long, Boolean> heldOut = new LinkedHashMap<>(out);
            heldOut.keySet().retainAll(held); // those submitted after the kill were not held
            fx.assertAllFailed(heldOut, "although it was held in flight (" + hold + ") until its peer died");
        }
        long id = fx.write(t, "b", 9, 10);
        fx.assertAllDone(fx.await(t, "b", List.of(id)));
        fx.assertTargetBlock(b, 10, BlockPattern.seed(Fixture.LOCAL, 9), "surviving peer after another died");
        fx.assertQuiet(t, "a", "after the dead peer's transfers were all reported");
        fx.assertQuiet(t, null, "after every transfer was reported");
    }

    @RuleTest(F2)
    public final void f2_stallDeadline() {
        Fixture fx = fx();
        Duration deadline = fx.env.deadline();
        DataTransport t = fx.initiator(fx.deadlineConfig());
        TargetPeer a = fx.connectedTarget(t, "a");
        TargetPeer b = fx.connectedTarget(t, "b");
        requireStall(a);
        boolean holds = a.stallHoldsTransfers();
        fx.stall(a);
        long start = System.nanoTime();
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            ids.add(fx.write(t, "a", Fixture.range(2 * i, 2), Fixture.range(2 * i, 2)));
        }
        long lastSubmit = System.nanoTime();
        List<Long> bIds = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            bIds.add(fx.write(t, "b", 20 + i, 20 + i));
        }
        fx.assertAllDone(fx.await(t, "b", bIds));
        Map<Long, Boolean> outcomes = new LinkedHashMap<>();
        Set<Long> pending = new HashSet<>(ids);
        long earlyEnd = start + deadline.toNanos() - 150_000_000L;
        while (System.nanoTime() - earlyEnd < 0) {
            PollResult r = fx.poll(t, "a");
            if (holds && !r.isEmpty()) {
                fail(fx.msg("transfers to a stalled target were reported before their deadline of "
                        + deadline.toMillis() + " ms (after " + (System.nanoTime() - start) / 1_000_000 + " ms): " + r));
            }
            fx.record(r, pending, outcomes, "a");
            LockSupport.parkNanos(5_000_000);
        }
        long wait = lastSubmit + deadline.toNanos() + 250_000_000L - System.nanoTime();
        if (wait > 0) {
            LockSupport.parkNanos(wait);
        }
        fx.record(fx.poll(t, "a"), pending, outcomes, "a");
        long tookMillis = (System.nanoTime() - start) / 1_000_000;
        if (!pending.isEmpty()) {
            fail(fx.msg("transfers " + pending + " to a stalled target were still pending " + tookMillis + " ms after"
                    + " their submit, past their deadline of " + deadline.toMillis() + " ms: the first poll after the"
                    + " deadline must report them failed"));
        }
        if (holds) {
            fx.assertAllFailed(outcomes, "although its target was stalled, so nothing could have moved");
        }
        fx.thaw(a);
        int done = 0;
        for (int i = 0; i < ids.size(); i++) {
            if (fx.reportedDone(outcomes, ids.get(i))) {
                done++;
                fx.assertWritten(a, Fixture.range(2 * i, 2), Fixture.range(2 * i, 2), "transfer " + ids.get(i)
                        + " to a frozen target, reported done");
            }
        }
        if (!holds) {
            System.out.println(fx.msg("a frozen target's transfers ended " + done + " done (bytes verified), "
                    + (ids.size() - done) + " failed at the deadline"));
        }
        fx.assertQuiet(t, "a", "after the thaw: transfers failed at their deadline must never be reported again");
        long other = fx.write(t, "b", 24, 25);
        fx.assertAllDone(fx.await(t, "b", List.of(other)));
        fx.assertTargetBlock(b, 25, BlockPattern.seed(Fixture.LOCAL, 24), "peer b after peer a missed its deadline");
        t.addPeer("a", a.descriptor());
        long id = fx.write(t, "a", 30, 31);
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
        fx.assertTargetBlock(a, 31, BlockPattern.seed(Fixture.LOCAL, 30), "transfer after re-adding");
        fx.assertQuiet(t, null, "after every transfer was reported");
    }

    @RuleTest(F3)
    public final void f3_submitErrorsAreOutcomes() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        Optional<InitiatorFaults> maybeFaults = fx.faults(t);
        Assumptions.assumeTrue(maybeFaults.isPresent(), () -> fx.msg("skipped: no initiator faults in this harness"
                + " (the backend does not declare " + Capability.FAULT_INJECTION + ")"));
        InitiatorFaults faults = maybeFaults.orElseThrow();
        faults.failNextSubmits(3);
        List<Long> failed = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            try {
                failed.add(fx.write(t, "a", i, i));
            } catch (RuntimeException e) {
                throw new AssertionError(fx.msg("a native submit error was thrown from writeBlocks: " + e), e);
            }
        }
        long good = fx.write(t, "a", 10, 11);
        List<Long> all = new ArrayList<>(failed);
        all.add(good);
        if (fx.has(Capability.READ)) {
            faults.failNextSubmits(1);
            try {
                all.add(fx.submit(t, false, "a", new int[] {20}, new int[] {21}));
            } catch (RuntimeException e) {
                throw new AssertionError(fx.msg("a native submit error was thrown from readBlocks: " + e), e);
            }
        }
        Map<Long, Boolean> out = fx.await(t, "a", all);
        for (long id : all) {
            if (id != good && fx.reportedDone(out, id)) {
                fail(fx.msg("transfer " + id + ", whose submit failed natively, was reported done"));
            }
        }
        assertTrue(fx.reportedDone(out, good), fx.msg("transfer " + good + " after failed submits failed"));
        fx.assertTargetBlock(a, 11, BlockPattern.seed(Fixture.LOCAL, 10), "transfer " + good);
        fx.assertQuiet(t, "a", "after every transfer was reported");
    }
}
