package io.blockxfer.tck;

import static io.blockxfer.tck.ConformanceRules.X1;
import static io.blockxfer.tck.ConformanceRules.X2;
import static io.blockxfer.tck.ConformanceRules.X3;
import static io.blockxfer.tck.ConformanceRules.X4;
import static io.blockxfer.tck.ConformanceRules.X5;
import static io.blockxfer.tck.ConformanceRules.X6;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * X: both cancel modes, on transfers held in flight for sure where the harness can hold them
 * (a stalled target, delayed completions), on completed and owed transfers, and on ids that are
 * not in flight.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class CancelRules extends RuleGroup {

    CancelRules(TransportConformanceSuite suite) {
        super(suite);
    }

    private static long[] array(List<Long> ids) {
        return ids.stream().mapToLong(Long::longValue).toArray();
    }

    /** Polls {@code peer} until {@code wanted} are reported; a report of a {@code forbidden} id fails. */
    private static Map<Long, Boolean> awaitWithout(Fixture fx, DataTransport t, String peer, List<Long> wanted,
            Set<Long> forbidden, String why) {
        Map<Long, Boolean> outcomes = new LinkedHashMap<>();
        Set<Long> pending = new HashSet<>(wanted);
        long deadline = System.nanoTime() + fx.env.timeout().toNanos();
        while (!pending.isEmpty()) {
            PollResult r = fx.poll(t, peer);
            r.forEach((id, ok) -> {
                if (forbidden.contains(id)) {
                    fail(fx.msg("transfer " + id + " was reported (" + (ok ? "done" : "failed") + ") " + why));
                }
            });
            fx.record(r, pending, outcomes, peer);
            if (!pending.isEmpty() && System.nanoTime() - deadline > 0) {
                fail(fx.msg("transfers " + pending + " not reported within " + fx.env.timeout().toMillis() + " ms"));
            }
            LockSupport.parkNanos(50_000);
        }
        return outcomes;
    }

    @RuleTest(X1)
    public final void x1_cancelImmediate() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        fx.connectedTarget(t, "b");
        Fixture.Hold hold = fx.hold(t, a);
        long since = System.nanoTime();
        fx.startHolding(hold, t, a);
        List<Long> cancelled = new ArrayList<>();
        List<Long> kept = new ArrayList<>();
        int count = hold == Fixture.Hold.NONE ? 64 : 8;
        for (int i = 0; i < count; i++) {
            long id = hold == Fixture.Hold.NONE ? fx.write(t, "a", Fixture.range(0, 32), Fixture.range(32, 32))
                    : fx.write(t, "a", Fixture.range(2 * i, 2), Fixture.range(2 * i, 2));
            (i % 2 == 0 ? cancelled : kept).add(id);
        }
        fx.stopDelaying(hold, t);
        long[] returned = t.cancel(array(cancelled), CancelMode.IMMEDIATE);
        assertEquals(0, returned.length, fx.msg("an immediate cancel returned ids: " + Arrays.toString(returned)));
        List<Long> other = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            other.add(fx.write(t, "b", 40 + i, 40 + i));
        }
        Set<Long> forbidden = Set.copyOf(cancelled);
        fx.assertAllDone(awaitWithout(fx, t, "b", other, forbidden, "to poll('b'), after it was cancelled"));
        fx.release(hold, a, since);
        Map<Long, Boolean> keptOut = awaitWithout(fx, t, "a", kept, forbidden, "after an immediate cancel of it");
        if (hold != Fixture.Hold.NONE) {
            fx.assertAllDone(keptOut);
        }
        List<Long> after = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            after.add(fx.write(t, "a", 50 + i, 20 + i));
        }
        fx.assertAllDone(awaitWithout(fx, t, "a", after, forbidden, "after an immediate cancel of it"));
        fx.assertWritten(a, Fixture.range(50, 4), Fixture.range(20, 4), "transfers after an immediate cancel");
        fx.assertQuiet(t, "a", "after an immediate cancel (cancelled: " + cancelled + ")");
        fx.assertQuiet(t, null, "after an immediate cancel (cancelled: " + cancelled + ")");
    }

    @RuleTest(X2)
    public final void x2_cancelWait() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        TargetPeer c = fx.connectedTarget(t, "c");
        long reported = fx.write(t, "a", 60, 60);
        fx.assertAllDone(fx.await(t, "a", List.of(reported)));
        Fixture.Hold hold = fx.hold(t, a);
        if (hold == Fixture.Hold.STALL && !fx.canHold(c)) {
            hold = Fixture.Hold.NONE;
        }
        long since = System.nanoTime();
        fx.startHolding(hold, t, a);
        if (hold == Fixture.Hold.STALL) {
            fx.stall(c);
        }
        Map<Long, String> peerOf = new LinkedHashMap<>();
        List<Long> ids = new ArrayList<>();
        int count = hold == Fixture.Hold.NONE ? 64 : 6;
        for (int i = 0; i < count; i++) {
            String peer = i % 2 == 0 ? "a" : "c";
            long id = hold == Fixture.Hold.NONE ? fx.write(t, peer, Fixture.range(0, 32), Fixture.range(32, 32))
                    : fx.write(t, peer, Fixture.range(4 * i, 4), Fixture.range(4 * i, 4));
            ids.add(id);
            peerOf.put(id, peer);
        }
        fx.stopDelaying(hold, t);
        List<Long> asked = new ArrayList<>();
        for (long id : ids) {
            asked.add(id);
            asked.add(id);
        }
        asked.add(999_999_999L);
        asked.add(-3L);
        asked.add(reported);
        long[] still = t.cancel(array(asked), CancelMode.WAIT);
        Set<Long> stillSet = new HashSet<>();
        for (long id : still) {
            assertTrue(ids.contains(id), fx.msg("wait cancel returned id " + id + ", which was not in flight"));
            assertTrue(stillSet.add(id), fx.msg("wait cancel returned id " + id + " twice"));
        }
        if (hold != Fixture.Hold.NONE) {
            assertEquals(new HashSet<>(ids), stillSet, fx.msg("wait cancel of transfers to two peers held in flight ("
                    + hold + ") must return exactly them"));
        }
        fx.release(hold, a, since);
        if (hold == Fixture.Hold.STALL) {
            fx.thaw(c);
        }
        Set<Long> released = new HashSet<>(ids);
        released.removeAll(stillSet);
        Map<Long, Boolean> outcomes = new LinkedHashMap<>();
        for (String peer : List.of("a", "c")) {
            List<Long> owed = stillSet.stream().filter(id -> peer.equals(peerOf.get(id))).toList();
            outcomes.putAll(awaitWithout(fx, t, peer, owed, released,
                    "after a wait cancel released it (it was not returned)"));
        }
        if (hold != Fixture.Hold.NONE) {
            fx.assertAllDone(outcomes);
            for (int i = 0; i < count; i++) {
                fx.assertWritten(i % 2 == 0 ? a : c, Fixture.range(4 * i, 4), Fixture.range(4 * i, 4), "transfer "
                        + ids.get(i) + ", returned by a wait cancel and reported done");
            }
        }
        fx.assertQuiet(t, null, "after a wait cancel (released: " + released + ")");
    }

    @RuleTest(X3)
    public final void x3_cancelUnknown() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        long id = fx.write(t, "a", 0, 0);
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
        assertEquals(0, t.cancel(new long[] {id, 999_999, -5, id, Long.MAX_VALUE, Long.MIN_VALUE}, CancelMode.WAIT)
                .length, fx.msg("wait mode"));
        assertEquals(0, t.cancel(new long[] {id, 999_999, -5, id, Long.MAX_VALUE, Long.MIN_VALUE},
                CancelMode.IMMEDIATE).length, fx.msg("immediate"));
        assertEquals(0, t.cancel(new long[0], CancelMode.WAIT).length, fx.msg("empty array"));
        assertEquals(0, t.cancel(new long[0], CancelMode.IMMEDIATE).length, fx.msg("empty array"));
        fx.assertQuiet(t, "a", "after cancelling ids that were not in flight");
        long next = fx.write(t, "a", 1, 1);
        fx.assertAllDone(fx.await(t, "a", List.of(next)));
        fx.assertTargetBlock(a, 1, BlockPattern.seed(Fixture.LOCAL, 1), "transfer " + next);
    }

    @RuleTest(X4)
    public final void x4_cancelWaitStalled() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        requireStall(a);
        fx.stall(a);
        long id = fx.write(t, "a", 2, 3);
        fx.sleep(java.time.Duration.ofMillis(50));
        long[] still = t.cancel(new long[] {id}, CancelMode.WAIT);
        if (a.stallHoldsTransfers()) {
            assertArrayEquals(new long[] {id}, still, fx.msg("wait cancel of stalled transfer " + id));
            fx.assertQuiet(t, "a", "while the target was stalled");
        } else if (still.length > 0) {
            assertArrayEquals(new long[] {id}, still, fx.msg("wait cancel of transfer " + id));
        }
        fx.thaw(a);
        if (still.length > 0) {
            Map<Long, Boolean> out = fx.await(t, "a", List.of(id));
            if (a.stallHoldsTransfers()) {
                fx.assertAllDone(out);
            }
            if (fx.reportedDone(out, id)) {
                fx.assertTargetBlock(a, 3, BlockPattern.seed(Fixture.LOCAL, 2), "transfer " + id
                        + ", reported done after the thaw");
            }
        }
        fx.assertQuiet(t, "a", "after the wait cancel's transfer was accounted for");
    }

    @RuleTest(X5)
    public final void x5_cancelCompletedUnpolled() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        List<Long> returnedAnyway = new ArrayList<>();
        boolean released = false;
        for (int attempt = 0; attempt < 3 && !released; attempt++) {
            long id = fx.write(t, "a", attempt, 30 + attempt);
            fx.awaitLanded(a, new int[] {attempt}, new int[] {30 + attempt}, "transfer " + id);
            long[] still = t.cancel(new long[] {id}, CancelMode.WAIT);
            if (still.length == 0) {
                released = true;
                fx.assertQuiet(t, "a", "after a wait cancel released completed transfer " + id);
            } else {
                assertArrayEquals(new long[] {id}, still, fx.msg("wait cancel of transfer " + id));
                returnedAnyway.add(id);
                fx.await(t, "a", List.of(id));
            }
        }
        if (!released) {
            fail(fx.msg("a wait cancel returned completed transfers " + returnedAnyway + " as still in flight (their"
                    + " bytes had landed " + fx.env.settle().toMillis() + " ms before)"));
        }
        long id = fx.write(t, "a", 5, 40);
        fx.awaitLanded(a, new int[] {5}, new int[] {40}, "transfer " + id);
        assertEquals(0, t.cancel(new long[] {id}, CancelMode.IMMEDIATE).length, fx.msg("immediate cancel"));
        fx.assertQuiet(t, "a", "after an immediate cancel of completed transfer " + id);
    }

    @RuleTest(X6)
    public final void x6_cancelOwedReports() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        Fixture.Hold hold = fx.hold(t, a);
        long since = System.nanoTime();
        fx.startHolding(hold, t, a);
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ids.add(fx.write(t, "a", i, i));
        }
        fx.stopDelaying(hold, t);
        assertTrue(t.removePeer("a"), fx.msg("removePeer"));
        assertEquals(0, t.cancel(array(ids.subList(0, 2)), CancelMode.IMMEDIATE).length,
                fx.msg("immediate cancel of owed reports"));
        long[] still = t.cancel(array(ids.subList(2, 4)), CancelMode.WAIT);
        assertEquals(0, still.length, fx.msg("a wait cancel returned " + Arrays.toString(still) + ", which its removed"
                + " peer already ended (their reports were owed, not in flight)"));
        fx.release(hold, a, since);
        fx.assertQuiet(t, "a", "after the owed reports " + ids + " were cancelled");
        fx.assertQuiet(t, null, "after the owed reports " + ids + " were cancelled");
    }
}
