package io.blockxfer.tck;

import static io.blockxfer.tck.ConformanceRules.C1;
import static io.blockxfer.tck.ConformanceRules.C2;
import static io.blockxfer.tck.ConformanceRules.C3;
import static io.blockxfer.tck.ConformanceRules.C4;
import static io.blockxfer.tck.ConformanceRules.C5;
import static io.blockxfer.tck.ConformanceRules.C6;
import static io.blockxfer.tck.ConformanceRules.C7;
import static io.blockxfer.tck.ConformanceRules.C8;
import static io.blockxfer.tck.ConformanceRules.C9;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.TransferFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

/**
 * C: ids, exactly-once reports, the scope of polls, the four poll forms, handlers, and reporting
 * order.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class CompletionRules extends RuleGroup {

    CompletionRules(TransportConformanceSuite suite) {
        super(suite);
    }

    @RuleTest(C1)
    public final void c1_uniqueIds() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        fx.connectedTarget(t, "b");
        Optional<InitiatorFaults> faults = fx.faults(t);
        long last = -1;
        Set<Long> seen = new HashSet<>();
        Set<Long> injected = new HashSet<>();
        List<Long> aIds = new ArrayList<>();
        List<Long> bIds = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            if (i == 40) {
                fx.await(t, "a", aIds).forEach((id, done) -> assertTrue(done, fx.msg("transfer " + id + " failed")));
                aIds.clear();
                t.removePeer("a");
                t.addPeer("a", a.descriptor());
            }
            if (i == 70 && faults.isPresent()) {
                faults.get().failNextSubmits(2);
            }
            boolean read = fx.has(Capability.READ) && i % 3 == 0;
            String peer = i % 2 == 0 ? "a" : "b";
            long id = fx.submit(t, !read, peer, new int[] {i % 32}, new int[] {i % 32});
            assertTrue(id > last, fx.msg("id " + id + " after " + last + " is not increasing"));
            assertTrue(seen.add(id), fx.msg("id " + id + " returned twice"));
            if (faults.isPresent() && (i == 70 || i == 71)) {
                injected.add(id);
            }
            last = id;
            (peer.equals("a") ? aIds : bIds).add(id);
        }
        Map<Long, Boolean> outcomes = new HashMap<>(fx.await(t, "a", aIds));
        outcomes.putAll(fx.await(t, "b", bIds));
        outcomes.forEach((id, done) -> assertEquals(!injected.contains(id), done, fx.msg("transfer " + id
                + (injected.contains(id) ? ", whose submit failed natively, was reported done" : " failed"))));
        long after = fx.write(t, "a", 0, 0);
        assertTrue(after > last, fx.msg("id " + after + " after every transfer was reported is not above " + last));
    }

    @RuleTest(C2)
    public final void c2_exactlyOnce() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        fx.connectedTarget(t, "a");
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            ids.add(fx.write(t, "a", i % Fixture.BLOCKS, (i + 1) % Fixture.BLOCKS));
        }
        fx.assertAllDone(fx.await(t, "a", ids));
        long end = System.nanoTime() + fx.env.quiet().toNanos();
        do {
            assertSame(PollResult.EMPTY, fx.poll(t, "a"), fx.msg("a poll after every transfer was reported"));
            assertSame(PollResult.EMPTY, fx.poll(t, null), fx.msg("pollAll after every transfer was reported"));
            assertEquals(0, fx.pollWith(t, "a", (id, ok) -> fail(fx.msg("transfer " + id + " reported again"))),
                    fx.msg("handler poll after every transfer was reported"));
            assertEquals(0, fx.pollWith(t, null, (id, ok) -> fail(fx.msg("transfer " + id + " reported again"))),
                    fx.msg("handler pollAll after every transfer was reported"));
            LockSupport.parkNanos(1_000_000);
        } while (System.nanoTime() - end < 0);
    }

    @RuleTest(C3)
    public final void c3_scopedPoll() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        fx.connectedTarget(t, "a");
        fx.connectedTarget(t, "b");
        List<Long> a = new ArrayList<>();
        List<Long> b = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            a.add(fx.write(t, "a", i % 32, i % 32));
            b.add(fx.write(t, "b", i % 32, i % 32));
        }
        fx.assertAllDone(fx.await(t, "a", a));
        fx.assertQuiet(t, "a", "after peer 'a' was drained (were they peer 'b''s?)");
        fx.assertAllDone(fx.await(t, "b", b));
        fx.assertQuiet(t, null, "after both peers were drained");
    }

    @RuleTest(C4)
    public final void c4_pollAll() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        fx.connectedTarget(t, "a");
        fx.connectedTarget(t, "b");
        fx.connectedTarget(t, "c");
        List<Long> ids = new ArrayList<>();
        String[] peers = {"a", "b", "c"};
        for (int i = 0; i < 45; i++) {
            ids.add(fx.write(t, peers[i % 3], i, i));
        }
        fx.assertAllDone(fx.await(t, null, ids));
        for (String p : peers) {
            assertSame(PollResult.EMPTY, fx.poll(t, p), fx.msg("poll('" + p + "') after pollAll drained everything"));
        }
        fx.assertQuiet(t, null, "after pollAll drained everything");
    }

    @RuleTest(C5)
    public final void c5_handlerPoll() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        fx.connectedTarget(t, "a");
        Set<Long> seen = new HashSet<>();
        for (int phase = 0; phase < 2; phase++) {
            Set<Long> pending = new HashSet<>();
            for (int i = 0; i < 32; i++) {
                pending.add(fx.write(t, "a", 32 * phase + i, 63 - 32 * phase - i));
            }
            long deadline = System.nanoTime() + fx.env.timeout().toNanos();
            int round = 0;
            while (!pending.isEmpty() && System.nanoTime() < deadline) {
                if (phase == 0 || round++ % 2 == 0) {
                    fx.pollWith(t, "a", (id, ok) -> {
                        assertTrue(seen.add(id), fx.msg("handler saw transfer " + id + " twice"));
                        assertTrue(pending.remove(id), fx.msg("handler saw unknown transfer " + id));
                        assertTrue(ok, fx.msg("transfer " + id + " failed"));
                    });
                } else {
                    PollResult r = fx.poll(t, "a");
                    r.forEach((id, ok) -> {
                        assertTrue(seen.add(id), fx.msg("transfer " + id + " reported twice (handler, then result)"));
                        assertTrue(pending.remove(id), fx.msg("poll reported unknown transfer " + id));
                        assertTrue(ok, fx.msg("transfer " + id + " failed"));
                    });
                }
                LockSupport.parkNanos(20_000);
            }
            assertTrue(pending.isEmpty(), fx.msg("not reported: " + pending));
        }
        assertEquals(0, fx.pollWith(t, "a", (id, ok) -> fail(fx.msg("extra report of " + id))),
                fx.msg("count of an empty handler poll"));
    }

    @RuleTest(C6)
    public final void c6_handlerMayCallBack() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        TargetPeer b = fx.connectedTarget(t, "b");
        Map<Long, Boolean> outcomes = new HashMap<>();
        Set<Long> bPending = new HashSet<>();
        for (String form : List.of("a", "<all>")) {
            Set<Long> aPending = new HashSet<>();
            for (int i = 0; i < 4; i++) {
                aPending.add(fx.write(t, "a", i, i));
            }
            String peer = form.equals("a") ? "a" : null;
            boolean[] calledBack = new boolean[1];
            Duration bound = fx.env.shortWait();
            long deadline = System.nanoTime() + fx.env.timeout().toNanos();
            while (!aPending.isEmpty() && System.nanoTime() < deadline) {
                fx.pollWith(t, peer, (id, ok) -> {
                    if (!aPending.remove(id) && !bPending.remove(id)) {
                        fail(fx.msg("handler saw unknown transfer " + id));
                    }
                    outcomes.put(id, ok);
                    if (calledBack[0]) {
                        return;
                    }
                    calledBack[0] = true;
                    fx.poll(t, "a").forEach((other, done) -> {
                        assertTrue(aPending.remove(other), fx.msg("poll('a') in a handler reported unknown " + other));
                        outcomes.put(other, done);
                    });
                    bPending.add(fx.within(bound, "a submit from another thread while a handler of "
                            + Fixture.pollName(peer) + " ran", () -> fx.write(t, "b", 10, 10)));
                    fx.within(bound, "a poll from another thread while a handler of " + Fixture.pollName(peer)
                            + " ran", () -> t.poll("b")).forEach((other, done) -> {
                                assertTrue(bPending.remove(other), fx.msg("poll('b') reported unknown " + other));
                                outcomes.put(other, done);
                            });
                    fx.within(bound, "a cancel from another thread while a handler of " + Fixture.pollName(peer)
                            + " ran", () -> t.cancel(new long[] {-7}, CancelMode.WAIT));
                });
            }
            assertTrue(aPending.isEmpty(), fx.msg("not reported: " + aPending));
            assertTrue(calledBack[0], fx.msg("no handler call"));
        }
        outcomes.putAll(fx.await(t, "b", bPending));
        fx.assertAllDone(outcomes);
        fx.assertTargetBlock(b, 10, BlockPattern.seed(Fixture.LOCAL, 10), "the transfer submitted from a handler");
        fx.assertWritten(a, Fixture.range(0, 4), Fixture.range(0, 4), "transfers reported to the handler");
        dependentMayCallBack(fx, t, a, b);
    }

    /**
     * C6's futures: a dependent of a transfer's future, run by whichever thread the transport
     * completes the future on (the transfer held until the dependent is in place, where the
     * backend can hold it), submits and polls on its own thread, and meanwhile another thread
     * submits, polls and cancels within the short bound.
     */
    private static void dependentMayCallBack(Fixture fx, DataTransport t, TargetPeer a, TargetPeer b) {
        Duration bound = fx.env.shortWait();
        Fixture.Hold hold = fx.hold(t, a);
        long heldSince = System.nanoTime();
        fx.startHolding(hold, t, a);
        TransferFuture f;
        try {
            f = t.writeBlocksAsync("a", new int[] {12}, new int[] {12});
        } finally {
            fx.stopDelaying(hold, t);
        }
        Set<Long> bPending = ConcurrentHashMap.newKeySet();
        Map<Long, Boolean> outcomes = new ConcurrentHashMap<>();
        CompletableFuture<Void> ran = f.thenRun(() -> {
            bPending.add(fx.write(t, "b", 13, 13));
            fx.poll(t, "b").forEach((id, done) -> {
                assertTrue(bPending.remove(id), fx.msg("poll('b') in a future's dependent reported unknown " + id));
                outcomes.put(id, done);
            });
            bPending.add(fx.within(bound, "a submit from another thread while a future's dependent ran",
                    () -> fx.write(t, "b", 14, 14)));
            fx.within(bound, "a poll from another thread while a future's dependent ran", () -> t.poll("b"))
                    .forEach((id, done) -> {
                        assertTrue(bPending.remove(id), fx.msg("poll('b') reported unknown " + id));
                        outcomes.put(id, done);
                    });
            fx.within(bound, "a cancel from another thread while a future's dependent ran",
                    () -> t.cancel(new long[] {-7}, CancelMode.WAIT));
        });
        fx.release(hold, a, heldSince);
        try {
            ran.get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof AssertionError ae) {
                throw ae;
            }
            throw new AssertionError(fx.msg("the dependent of transfer " + f.transferId() + "'s future threw "
                    + e.getCause()), e.getCause());
        } catch (TimeoutException e) {
            fail(fx.msg("the dependent of transfer " + f.transferId() + "'s future did not run within "
                    + fx.env.timeout().toMillis() + " ms"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(fx.msg("interrupted while the dependent ran"), e);
        }
        assertTrue(f.isDone() && !f.isCompletedExceptionally(), fx.msg("the future of transfer " + f.transferId()
                + " whose dependent ran must be done: " + f));
        outcomes.putAll(fx.await(t, "b", Set.copyOf(bPending)));
        fx.assertAllDone(outcomes);
        fx.assertWritten(a, new int[] {12}, new int[] {12}, "the transfer whose future got the dependent");
        fx.assertWritten(b, new int[] {13, 14}, new int[] {13, 14}, "transfers submitted from a future's dependent");
    }

    @RuleTest(C7)
    public final void c7_outcomesInEveryForm() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        fx.connectedTarget(t, "b");
        Optional<InitiatorFaults> faults = fx.faults(t);
        Assumptions.assumeTrue(faults.isPresent() || fx.canHold(a), () -> fx.msg("skipped: no way to make transfers"
                + " fail on purpose here (needs initiator faults or a stall that holds transfers)"));
        String[] forms = {"poll(peer)", "poll(peer, handler)", "pollAll()", "pollAll(handler)"};
        for (int form = 0; form < forms.length; form++) {
            Map<Long, String> peerOf = new LinkedHashMap<>();
            Map<Long, Boolean> expected = new LinkedHashMap<>();
            if (faults.isPresent()) {
                faults.get().failNextSubmits(2);
                for (int i = 0; i < 2; i++) {
                    long id = fx.write(t, "a", i, i);
                    peerOf.put(id, "a");
                    expected.put(id, false);
                }
            } else {
                fx.stall(a);
                for (int i = 0; i < 2; i++) {
                    long id = fx.write(t, "a", i, i);
                    peerOf.put(id, "a");
                    expected.put(id, false);
                }
                t.removePeer("a");
                fx.thaw(a);
                t.addPeer("a", a.descriptor());
            }
            for (int i = 0; i < 2; i++) {
                long id = fx.write(t, "b", 10 + i, 10 + i);
                peerOf.put(id, "b");
                expected.put(id, true);
            }
            String name = forms[form];
            Map<Long, Boolean> seen = drain(fx, t, form, peerOf, name);
            expected.forEach((id, done) -> {
                Boolean reported = seen.get(id);
                assertEquals(done, reported, fx.msg(name + " reported transfer " + id + " as "
                        + (reported == null ? "nothing" : reported ? "done" : "failed") + "; it "
                        + (done ? "completed" : "failed")));
            });
        }
        fx.assertQuiet(t, null, "after every transfer was reported");
    }

    private static Map<Long, Boolean> drain(Fixture fx, DataTransport t, int form, Map<Long, String> peerOf,
            String formName) {
        Map<Long, Boolean> seen = new LinkedHashMap<>();
        Set<Long> pending = new HashSet<>(peerOf.keySet());
        long deadline = System.nanoTime() + fx.env.timeout().toNanos();
        while (!pending.isEmpty()) {
            for (String peer : form < 2 ? new String[] {"a", "b"} : new String[] {null}) {
                switch (form) {
                    case 0, 2 -> fx.record(fx.poll(t, peer), pending, seen, peer);
                    default -> fx.pollWith(t, peer, (id, ok) -> {
                        if (seen.put(id, ok) != null) {
                            fail(fx.msg(formName + " reported transfer " + id + " twice"));
                        }
                        if (!pending.remove(id)) {
                            fail(fx.msg(formName + " reported transfer " + id + ", which it does not owe"));
                        }
                        if (peer != null && !peer.equals(peerOf.get(id))) {
                            fail(fx.msg(formName + " of '" + peer + "' reported transfer " + id + " of '"
                                    + peerOf.get(id) + "'"));
                        }
                    });
                }
            }
            if (!pending.isEmpty() && System.nanoTime() - deadline > 0) {
                fail(fx.msg(formName + " did not report " + pending + " within " + fx.env.timeout().toMillis() + " ms"));
            }
            LockSupport.parkNanos(50_000);
        }
        return seen;
    }

    @RuleTest(C8)
    public final void c8_outOfOrder() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        fx.connectedTarget(t, "b");
        Optional<InitiatorFaults> faults = fx.faults(t);
        Assumptions.assumeTrue(faults.isPresent() || fx.canHold(a), () -> fx.msg("skipped: no way to hold one"
                + " transfer in flight while another finishes (needs initiator faults or a stall that holds)"));
        if (faults.isPresent()) {
            long since = System.nanoTime();
            faults.get().delayCompletions(fx.env.hold());
            long slow = fx.write(t, "a", 0, 0);
            faults.get().delayCompletions(Duration.ZERO);
            long fast = fx.write(t, "a", 1, 1);
            expectReportedFirst(fx, t, "a", fast, slow, since + fx.env.hold().toNanos(), "of the same peer");
        }
        if (fx.canHold(a)) {
            fx.stall(a);
            long slow = fx.write(t, "a", 2, 2);
            long fast = fx.write(t, "b", 3, 3);
            expectReportedFirst(fx, t, null, fast, slow, System.nanoTime() + fx.env.timeout().toNanos(),
                    "of another peer, stalled");
            fx.thaw(a);
            fx.assertAllDone(fx.await(t, "a", List.of(slow)));
        }
        fx.assertQuiet(t, null, "after every transfer was reported");
    }

    /** Polls until {@code fast} is reported, which must happen before {@code slow} is and before {@code byNanos}. */
    private static void expectReportedFirst(Fixture fx, DataTransport t, @Nullable String peer, long fast, long slow,
            long byNanos, String what) {
        Map<Long, Boolean> outcomes = new LinkedHashMap<>();
        Set<Long> pending = new HashSet<>(List.of(fast, slow));
        while (!outcomes.containsKey(fast)) {
            fx.record(fx.poll(t, peer), pending, outcomes, peer);
            if (outcomes.containsKey(slow)) {
                fail(fx.msg("transfer " + fast + " finished first, but was reported " + (outcomes.containsKey(fast)
                        ? "together with" : "after") + " the earlier transfer " + slow + " " + what
                        + ", which was held in flight: reports must not wait for earlier transfers"));
            }
            if (!outcomes.containsKey(fast) && System.nanoTime() - byNanos > 0) {
                fail(fx.msg("transfer " + fast + " was not reported while the earlier transfer " + slow + " " + what
                        + " was held in flight"));
            }
            LockSupport.parkNanos(100_000);
        }
        assertTrue(outcomes.get(fast), fx.msg("transfer " + fast + " failed"));
        pending.remove(fast);
        if (!pending.isEmpty() && peer != null) {
            outcomes.putAll(fx.await(t, peer, pending));
            fx.assertAllDone(outcomes);
        }
    }

    @RuleTest(C9)
    public final void c9_completedBeforeDeadlineIsDone() {
        Fixture fx = fx();
        DataTransport t = fx.initiator(fx.deadlineConfig());
        TargetPeer a = fx.connectedTarget(t, "a");
        long since = System.nanoTime();
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ids.add(fx.write(t, "a", i, 20 + i));
        }
        fx.awaitLanded(a, Fixture.range(0, 4), Fixture.range(20, 4), "transfers " + ids);
        long wait = since + fx.env.deadline().toNanos() + 300_000_000L - System.nanoTime();
        if (wait > 0) {
            LockSupport.parkNanos(wait);
        }
        Map<Long, Boolean> outcomes = fx.await(t, "a", ids);
        outcomes.forEach((id, done) -> assertTrue(done, fx.msg("transfer " + id + " completed before its deadline"
                + " (its bytes landed) but was reported failed when first polled after the deadline")));
    }
}
