package io.blockxfer.tck;

import static io.blockxfer.tck.ConformanceRules.A1;
import static io.blockxfer.tck.ConformanceRules.A2;
import static io.blockxfer.tck.ConformanceRules.A3;
import static io.blockxfer.tck.ConformanceRules.A4;
import static io.blockxfer.tck.ConformanceRules.A5;
import static io.blockxfer.tck.ConformanceRules.A6;
import static io.blockxfer.tck.ConformanceRules.A7;
import static io.blockxfer.tck.ConformanceRules.A8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.TransferFailedException;
import io.blockxfer.transport.TransferFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A: waits and futures: a parked waiter wakes when a transfer of its scope ends, honours its
 * limit, is interrupted and woken by close without losing a report; futures complete once, on
 * their own surface, and cancel their transfers; a thousand virtual threads wait without pinning
 * a carrier; and the stress ledger holds with polls, waits and futures mixed. The rules of
 * blocking on a future (A9, A10) are inherited from {@link JoinRules}.
 *
 * <p>A waiter is parked on a peer with nothing in flight, so every backend can be checked, not only
 * those whose targets can be held: a transfer another thread submits afterwards must wake it.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class WaitRules extends JoinRules {

    WaitRules(TransportConformanceSuite suite) {
        super(suite);
    }

    @RuleTest(A1)
    public final void a1_parkedWaiterWakesWhenItsTransferEnds() throws Exception {
        Fixture fx = fx();
        DataTransport t = longDeadlineInitiator(fx);
        TargetPeer target = fx.connectedTarget(t, "a");
        for (boolean all : new boolean[] {false, true}) {
            Waiter<PollResult> w = Waiter.start(fx, "waiter", () -> all ? t.pollAll(fx.env.timeout().toMillis(),
                    TimeUnit.MILLISECONDS) : t.poll("a", fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS));
            w.awaitParked(fx);
            int[] blocks = {7, 8, 9};
            long ended = System.nanoTime();
            long id = fx.write(t, "a", blocks, blocks);
            PollResult r = w.result(fx, "a wait " + (all ? "of every peer" : "of peer 'a'"));
            long took = System.nanoTime() - ended;
            assertTrue(took < fx.env.wake().toNanos(), fx.msg("a thread parked in " + (all ? "pollAll" : "poll('a')")
                    + " returned " + took / 1_000_000 + " ms after transfer " + id + " was submitted (it ends in"
                    + " microseconds); the bound is " + fx.env.wake().toMillis() + " ms: " + r));
            assertEquals(PollResult.of(new long[] {id}, new long[0]), r, fx.msg("the woken wait must report"
                    + " transfer " + id + " done"));
            fx.assertWritten(target, blocks, blocks, "WRITE " + id);
        }
        Fixture.Hold hold = fx.hold(t, target);
        if (hold == Fixture.Hold.NONE) {
            return; // the backend cannot hold a transfer: the part above is all that can be checked
        }
        fx.startHolding(hold, t, target);
        long heldSince = System.nanoTime();
        long id = fx.write(t, "a", 3, 3);
        fx.stopDelaying(hold, t);
        Waiter<PollResult> w = Waiter.start(fx, "held-waiter", () -> t.poll("a", fx.env.timeout().toMillis() + fx.env.hold()
                .toMillis(), TimeUnit.MILLISECONDS));
        w.awaitParked(fx);
        fx.release(hold, target, heldSince);
        long released = System.nanoTime();
        PollResult r = w.result(fx, "a wait for a held transfer");
        long took = System.nanoTime() - released;
        assertTrue(took < fx.env.wake().toNanos(), fx.msg("a thread parked in poll('a') returned " + took / 1_000_000
                + " ms after its held transfer " + id + " was let go; the bound is " + fx.env.wake().toMillis()
                + " ms: " + r));
        assertEquals(PollResult.of(new long[] {id}, new long[0]), r, fx.msg("the woken wait must report transfer "
                + id + " done"));
    }

    @RuleTest(A2)
    public final void a2_waitsHonourTheirLimits() throws Exception {
        Fixture fx = fx();
        DataTransport t = longDeadlineInitiator(fx);
        fx.connectedTarget(t, "a");
        long limit = 300;
        long start = System.nanoTime();
        assertSame(PollResult.EMPTY, t.poll("a", limit, TimeUnit.MILLISECONDS), fx.msg("poll('a', limit) with"
                + " nothing in flight must return the shared empty result"));
        assertLimit(fx, "poll('a', limit)", start, limit);
        start = System.nanoTime();
        assertEquals(0, t.poll("a", (id, ok) -> fail(fx.msg("reported " + id)), limit, TimeUnit.MILLISECONDS));
        assertLimit(fx, "poll('a', handler, limit)", start, limit);
        start = System.nanoTime();
        assertSame(PollResult.EMPTY, t.pollAll(limit * 1_000, TimeUnit.MICROSECONDS), fx.msg("pollAll(limit)"));
        assertLimit(fx, "pollAll(limit)", start, limit);
        start = System.nanoTime();
        assertEquals(0, t.pollAll((id, ok) -> fail(fx.msg("reported " + id)), limit, TimeUnit.MILLISECONDS));
        assertLimit(fx, "pollAll(handler, limit)", start, limit);

        long quick = fx.env.shortWait().toNanos();
        start = System.nanoTime();
        assertSame(PollResult.EMPTY, t.poll("a", 0, TimeUnit.SECONDS), fx.msg("a zero limit"));
        assertSame(PollResult.EMPTY, t.poll("nobody", 1, TimeUnit.HOURS), fx.msg("a wait on an unknown peer"));
        assertEquals(0, t.poll("nobody", (id, ok) -> { }, 1, TimeUnit.HOURS), fx.msg("a wait on an unknown peer"));
        assertTrue(System.nanoTime() - start < quick, fx.msg("a zero limit or an unknown peer must return at once,"
                + " as a poll does; took " + (System.nanoTime() - start) / 1_000_000 + " ms"));

        waitIgnoresOtherPeers(fx, t);

        long id = fx.write(t, "a", 1, 1);
        refused(fx, "a negative limit", () -> t.poll("a", -1, TimeUnit.NANOSECONDS));
        refused(fx, "a limit beyond DataTransport.MAX_WAIT", () -> t.pollAll(DataTransport.MAX_WAIT.toHours() + 1,
                TimeUnit.HOURS));
        refused(fx, "a limit of Long.MAX_VALUE days", () -> t.poll("a", (i, ok) -> { }, Long.MAX_VALUE,
                TimeUnit.DAYS));
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
    }

    /**
     * A wait on peer 'a' while a transfer to 'b' ends returns the shared empty result at its limit,
     * and 'b''s report stays for a poll of 'b'. The check counts only where 'b''s bytes landed while
     * the wait still had a third of its limit to go (so 'b''s end could have ended or answered it);
     * otherwise it is tried again with a limit twice as long.
     */
    private static void waitIgnoresOtherPeers(Fixture fx, DataTransport t) throws Exception {
        TargetPeer b = fx.connectedTarget(t, "b");
        for (long limit = 600, block = 4; ; limit *= 2, block++) {
            long start = System.nanoTime();
            long wait = limit;
            Waiter<PollResult> w = Waiter.start(fx, "waiter-on-a", () -> t.poll("a", wait, TimeUnit.MILLISECONDS));
            w.awaitParked(fx);
            long idB = fx.write(t, "b", (int) block, (int) block);
            fx.awaitLanded(b, new int[] {(int) block}, new int[] {(int) block}, "WRITE " + idB + " to 'b'");
            boolean conclusive = !w.isDone() && System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(limit * 2 / 3);
            PollResult r = w.result(fx, "a wait on peer 'a' while a transfer to 'b' ended");
            assertSame(PollResult.EMPTY, r, fx.msg("a wait on peer 'a' must neither report nor be ended by transfer "
                    + idB + " to peer 'b'; it returned " + r));
            if (conclusive) {
                assertLimit(fx, "poll('a', limit) while a transfer to 'b' ended", start, limit);
            }
            fx.assertAllDone(fx.await(t, "b", List.of(idB)));
            if (conclusive || limit >= fx.env.timeout().toMillis()) {
                return;
            }
        }
    }

    private static void assertLimit(Fixture fx, String what, long start, long limitMillis) {
        long took = System.nanoTime() - start;
        assertTrue(took >= TimeUnit.MILLISECONDS.toNanos(limitMillis), fx.msg(what + " returned after " + took
                / 1_000_000 + " ms, before its limit of " + limitMillis + " ms"));
        assertTrue(took < TimeUnit.MILLISECONDS.toNanos(limitMillis) + fx.env.wake().toNanos(), fx.msg(what
                + " returned " + took / 1_000_000 + " ms after it began, its limit of " + limitMillis + " ms plus"
                + " more than the bound of " + fx.env.wake().toMillis() + " ms"));
    }

    /** A call that must be refused with IllegalArgumentException naming the limit. */
    private static void refused(Fixture fx, String what, Waiter.Call<?> call) {
        try {
            Object r = call.call();
            fail(fx.msg(what + " was accepted and returned " + r + "; expected IllegalArgumentException"));
        } catch (IllegalArgumentException expected) {
            assertTrue(expected.getMessage() != null && expected.getMessage().contains("limit"), fx.msg(what
                    + ": the IllegalArgumentException must name the limit: " + expected.getMessage()));
        } catch (Exception e) {
            throw new AssertionError(fx.msg(what + " threw " + e + "; expected IllegalArgumentException"), e);
        }
    }

    @RuleTest(A3)
    public final void a3_interruptedWaitersThrowAndLoseNothing() throws Exception {
        Fixture fx = fx();
        DataTransport t = longDeadlineInitiator(fx);
        TargetPeer target = fx.connectedTarget(t, "a");
        Waiter<String> w = Waiter.start(fx, "interrupted", () -> {
            try {
                t.poll("a", fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
                return "returned without InterruptedException";
            } catch (InterruptedException e) {
                return Thread.currentThread().isInterrupted() ? "threw InterruptedException with its interrupt"
                        + " status still set" : "ok";
            }
        });
        w.awaitParked(fx);
        long interrupted = System.nanoTime();
        w.thread().interrupt();
        String outcome = w.result(fx, "a wait interrupted while parked");
        long took = System.nanoTime() - interrupted;
        assertEquals("ok", outcome, fx.msg("a wait interrupted while parked " + outcome));
        assertTrue(took < fx.env.wake().toNanos(), fx.msg("a wait returned " + took / 1_000_000 + " ms after its"
                + " thread was interrupted; the bound is " + fx.env.wake().toMillis() + " ms"));

        int[] blocks = {4, 5};
        long id = fx.write(t, "a", blocks, blocks);
        fx.awaitLanded(target, blocks, blocks, "WRITE " + id);
        String early = fx.within(fx.env.shortWait(), "a wait by an interrupted thread", () -> {
            Thread.currentThread().interrupt();
            try {
                PollResult r = t.poll("a", fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
                return "returned " + r + " without InterruptedException";
            } catch (InterruptedException e) {
                return Thread.currentThread().isInterrupted() ? "threw InterruptedException with its interrupt"
                        + " status still set" : "ok";
            }
        });
        assertEquals("ok", early, fx.msg("a wait by a thread interrupted before it began " + early));
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
    }

    @RuleTest(A4)
    public final void a4_closeWakesWaitersAndFailsFutures() throws Exception {
        Fixture fx = fx();
        DataTransport t = longDeadlineInitiator(fx);
        TargetPeer target = fx.connectedTarget(t, "a");
        Fixture.Hold hold = fx.hold(t, target);
        fx.startHolding(hold, t, target);
        List<TransferFuture> futures = new ArrayList<>();
        for (int b = 0; b < 4; b++) {
            futures.add(t.writeBlocksAsync("a", new int[] {b}, new int[] {b}));
        }
        fx.stopDelaying(hold, t);
        if (hold != Fixture.Hold.NONE) {
            for (TransferFuture f : futures) {
                assertFalse(f.isDone(), fx.msg("the future of held transfer " + f.transferId() + " completed: " + f));
            }
        }
        Waiter<String> w = Waiter.start(fx, "closed", () -> {
            try {
                PollResult r;
                do { // transfers that were not held may be reported; the close must end the wait
                    r = t.pollAll(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
                } while (!r.isEmpty());
                return "returned the empty result at its limit";
            } catch (IllegalStateException e) {
                return "ok";
            }
        });
        w.awaitParked(fx);
        long closing = System.nanoTime();
        CompletableFuture<Object> close = fx.start("close", () -> {
            t.close();
            return null;
        });
        String outcome = w.result(fx, "a wait ended by close");
        long took = System.nanoTime() - closing;
        assertEquals("ok", outcome, fx.msg("a wait that close ended " + outcome + "; expected IllegalStateException"));
        assertTrue(took < fx.env.wake().toNanos(), fx.msg("a wait returned "
                + took / 1_000_000 + " ms after close began; the bound is " + fx.env.wake().toMillis() + " ms"));
        fx.thaw(target);
        close.get(fx.env.timeout().toMillis() + fx.env.closeTimeout().toMillis(), TimeUnit.MILLISECONDS);
        for (TransferFuture f : futures) {
            try {
                f.get(fx.env.shortWait().toMillis(), TimeUnit.MILLISECONDS);
                assertTrue(hold == Fixture.Hold.NONE, fx.msg("the future of held transfer " + f.transferId()
                        + " completed normally although the transport closed before it ended"));
            } catch (ExecutionException e) {
                assertTrue(e.getCause() instanceof IllegalStateException, fx.msg("the future of transfer "
                        + f.transferId() + " failed with " + e.getCause() + "; a close must fail it with"
                        + " IllegalStateException"));
            } catch (TimeoutException e) {
                fail(fx.msg("the future of transfer " + f.transferId() + " is still pending after close"));
            }
        }
        try {
            t.poll("a", 1, TimeUnit.SECONDS);
            fail(fx.msg("a wait after close returned; expected IllegalStateException"));
        } catch (IllegalStateException expected) {
            // as every call after close
        }
    }

    @RuleTest(A5)
    public final void a5_futuresCompleteOnTheirOwnSurface() throws Exception {
        Fixture fx = fx();
        DataTransport t = longDeadlineInitiator(fx);
        TargetPeer target = fx.connectedTarget(t, "a");
        Fixture.Hold hold = fx.hold(t, target);
        if (hold == Fixture.Hold.STALL) {
            fx.stall(target);
            int[] held = {20, 21};
            TransferFuture f = t.writeBlocksAsync("a", held, held);
            fx.sleep(fx.env.quiet());
            assertFalse(f.isDone(), fx.msg("the future of transfer " + f.transferId() + " to a stalled target"
                    + " completed: " + f));
            fx.thaw(target);
            f.get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
            fx.assertWritten(target, held, held, "asynchronous WRITE " + f.transferId());
        }
        List<TransferFuture> futures = new ArrayList<>();
        Set<Long> polled = new HashSet<>();
        for (int i = 0; i < 16; i++) {
            int b = i % 8;
            boolean read = fx.has(Capability.READ) && i % 4 == 3;
            TransferFuture f = read ? t.readBlocksAsync("a", new int[] {40 + b}, new int[] {b})
                    : t.writeBlocksAsync("a", new int[] {b}, new int[] {b});
            assertEquals("a", f.peerId(), fx.msg("the future's peer"));
            assertTrue(f.transferId() >= 0, fx.msg("the future's id " + f.transferId()));
            futures.add(f);
            polled.add(fx.write(t, "a", 8 + b, 8 + b));
        }
        Map<Long, Boolean> outcomes = fx.await(t, "a", polled);
        fx.assertAllDone(outcomes);
        for (int i = 0; i < futures.size(); i++) {
            TransferFuture f = futures.get(i);
            CompletableFuture<String> dependent = f.thenApply(v -> "done");
            assertSame(CompletableFuture.class, dependent.getClass(), fx.msg("a future's dependents must be plain"
                    + " CompletableFutures"));
            try {
                assertEquals("done", dependent.get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS));
            } catch (ExecutionException e) {
                throw new AssertionError(fx.msg("asynchronous transfer " + f.transferId() + " failed: " + e.getCause()),
                        e.getCause());
            }
            int b = i % 8;
            if (fx.has(Capability.READ) && i % 4 == 3) {
                fx.assertLocalBlock(t, 40 + b, BlockPattern.seed(Fixture.TARGET, b), "asynchronous READ "
                        + f.transferId());
            } else {
                fx.assertTargetBlock(target, b, BlockPattern.seed(Fixture.LOCAL, b), "asynchronous WRITE "
                        + f.transferId());
            }
        }
        fx.assertQuiet(t, "a", "after every asynchronous transfer completed its future (their ids belong to their"
                + " futures)");
        assertSame(PollResult.EMPTY, t.pollAll(fx.env.quiet().toMillis(), TimeUnit.MILLISECONDS),
                fx.msg("a wait after every asynchronous transfer completed its future reported something"));
        TransferFuture unknown = t.writeBlocksAsync("nobody", new int[] {0}, new int[] {0});
        assertEquals(DataTransport.NOT_SUBMITTED, unknown.transferId(), fx.msg("the id of a future to an unknown peer"));
        assertTrue(unknown.isCompletedExceptionally(), fx.msg("a future to an unknown peer must be failed at once"));
        try {
            unknown.get(0, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            assertTrue(e.getCause() instanceof TransferFailedException, fx.msg("a future to an unknown peer failed"
                    + " with " + e.getCause() + "; expected TransferFailedException"));
        }
    }

    @RuleTest(A6)
    public final void a6_futuresAndCancels() throws Exception {
        Fixture fx = fx();
        DataTransport t = longDeadlineInitiator(fx);
        TargetPeer target = fx.connectedTarget(t, "a");
        Fixture.Hold hold = fx.hold(t, target);
        fx.startHolding(hold, t, target);
        long heldSince = System.nanoTime();
        TransferFuture byFuture = t.writeBlocksAsync("a", new int[] {1}, new int[] {1});
        TransferFuture byImmediate = t.writeBlocksAsync("a", new int[] {2}, new int[] {2});
        TransferFuture byWait = t.writeBlocksAsync("a", new int[] {3}, new int[] {3});
        fx.stopDelaying(hold, t);
        boolean held = hold != Fixture.Hold.NONE;

        boolean cancelled = byFuture.cancel(true);
        assertTrue(byFuture.isDone(), fx.msg("a future is done after cancel"));
        if (held) {
            assertTrue(cancelled && byFuture.isCancelled(), fx.msg("cancelling the future of held transfer "
                    + byFuture.transferId() + " must cancel it"));
        }
        if (cancelled) {
            assertArrayEquals(new long[0], t.cancel(new long[] {byFuture.transferId()}, CancelMode.WAIT),
                    fx.msg("transfer " + byFuture.transferId() + " is still tracked after its future was cancelled"));
        }
        assertArrayEquals(new long[0], t.cancel(new long[] {byImmediate.transferId()}, CancelMode.IMMEDIATE));
        assertTrue(byImmediate.isDone(), fx.msg("an immediate cancel of transfer " + byImmediate.transferId()
                + " must end its future before it returns"));
        if (held) {
            assertTrue(byImmediate.isCancelled(), fx.msg("an immediate cancel of held transfer "
                    + byImmediate.transferId() + " must cancel its future: " + byImmediate));
        }
        long[] still = t.cancel(new long[] {byWait.transferId()}, CancelMode.WAIT);
        if (held) {
            assertArrayEquals(new long[] {byWait.transferId()}, still, fx.msg("a wait cancel of held transfer "
                    + byWait.transferId() + " must return it"));
            assertFalse(byWait.isDone(), fx.msg("a wait cancel must leave the future of a transfer in flight"));
        }
        fx.release(hold, target, heldSince);
        if (still.length == 1) {
            try {
                byWait.get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw new AssertionError(fx.msg("transfer " + byWait.transferId() + ", returned by a wait cancel,"
                        + " failed: " + e.getCause()), e.getCause());
            } catch (TimeoutException e) {
                fail(fx.msg("the future of transfer " + byWait.transferId() + ", returned by a wait cancel, never"
                        + " completed"));
            }
        } else {
            assertTrue(byWait.isDone(), fx.msg("a wait cancel that released transfer " + byWait.transferId()
                    + " must end its future"));
        }
        fx.assertQuiet(t, null, "after cancelling asynchronous transfers (their ids belong to their futures)");

        if (fx.faults(t).isPresent()) {
            fx.faults(t).orElseThrow().failNextSubmits(1);
            TransferFuture failed = t.writeBlocksAsync("a", new int[] {5}, new int[] {5});
            try {
                failed.get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
                fail(fx.msg("transfer " + failed.transferId() + ", whose submit failed natively, completed its future"
                        + " normally"));
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TransferFailedException tf) || tf.transferId() != failed.transferId()
                        || !"a".equals(tf.peerId())) {
                    throw new AssertionError(fx.msg("a failed transfer's future must fail with a"
                            + " TransferFailedException naming id " + failed.transferId() + " and peer 'a', not "
                            + e.getCause()), e.getCause());
                }
            }
        }
        try {
            byImmediate.get(0, TimeUnit.SECONDS);
        } catch (CancellationException | ExecutionException expected) {
            // cancelled, or failed before the cancel
        }
        startedTransferFailsItsFuture(fx);
    }

    /**
     * A transfer that started and that the backend then reports failed (held past its deadline by
     * delayed completions) fails its future with TransferFailedException naming id and peer. Runs
     * where the initiator's completions can be delayed.
     */
    private static void startedTransferFailsItsFuture(Fixture fx) throws Exception {
        DataTransport d = fx.initiator(fx.deadlineConfig());
        fx.connectedTarget(d, "a");
        InitiatorFaults faults = fx.faults(d).orElse(null);
        if (faults == null) {
            return;
        }
        faults.delayCompletions(fx.env.deadline().multipliedBy(3));
        TransferFuture overdue = d.writeBlocksAsync("a", new int[] {6}, new int[] {6});
        faults.delayCompletions(Duration.ZERO);
        try {
            overdue.get(fx.env.timeout().plus(fx.env.deadline().multipliedBy(3)).toMillis(), TimeUnit.MILLISECONDS);
            fail(fx.msg("transfer " + overdue.transferId() + ", held past its deadline of "
                    + fx.env.deadline().toMillis() + " ms, completed its future normally"));
        } catch (TimeoutException e) {
            fail(fx.msg("the future of transfer " + overdue.transferId() + ", held past its deadline, never"
                    + " completed"));
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TransferFailedException tf) || tf.transferId() != overdue.transferId()
                    || !"a".equals(tf.peerId())) {
                throw new AssertionError(fx.msg("the future of transfer " + overdue.transferId() + ", failed by its"
                        + " deadline, must fail with a TransferFailedException naming it and peer 'a', not "
                        + e.getCause()), e.getCause());
            }
        }
    }

    @RuleTest(A7)
    public final void a7_aThousandVirtualThreadsWaitWithoutPinning() throws Exception {
        Fixture fx = fx();
        DataTransport t = longDeadlineInitiator(fx);
        int peers = 4;
        for (int p = 0; p < peers; p++) {
            fx.connectedTarget(t, "vt" + p);
        }
        VirtualWaiters warmUp = new VirtualWaiters(fx, t, peers, 16);
        // loads and initialises the classes the threads use, also those only a recording uses (a
        // thread waiting for another's class initialiser is pinned, once), outside the recording checked
        PinningRecorder.record(warmUp::run);
        VirtualWaiters run = new VirtualWaiters(fx, t, peers, 1_000);
        List<String> pinned = PinningRecorder.record(run::run);
        assertTrue(pinned.isEmpty(), () -> fx.msg(pinned.size() + " jdk.VirtualThreadPinned events while 1000"
                + " virtual threads waited; a wait must park without pinning its carrier (never inside native code or"
                + " an upcall); first: " + pinned.get(0)));
    }

    @RuleTest(A8)
    public final void a8_stressLedgerWithWaitsAndFutures() throws Exception {
        Fixture fx = fx();
        StressRun run = new StressRun(fx, fx.initiator(), 3).withWaitsAndFutures();
        run.run(fx.env.stress());
        run.verify();
        assertTrue(run.submitted() > 0, fx.msg("the stress submitted nothing"));
        assertTrue(run.asyncSubmitted() > 0, fx.msg("the stress submitted no asynchronous transfer"));
    }
}
