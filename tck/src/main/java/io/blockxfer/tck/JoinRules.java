package io.blockxfer.tck;

import static io.blockxfer.tck.ConformanceRules.A10;
import static io.blockxfer.tck.ConformanceRules.A9;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.TransferFuture;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Assumptions;

/**
 * A, the rules of blocking on a transfer's future: {@code get}, {@code get} with a limit and
 * {@code join} return within the wake bound after the transfer ended, as a wait does (A9), and
 * honour limits, interrupts and close as a wait does (A10). {@link WaitRules} extends this class,
 * so that these rules run in the suite's group of waits and futures.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class JoinRules extends RuleGroup {

    /** A transfer deadline far beyond every wait of these rules, so only a signal can end a park early. */
    static final Duration LONG_DEADLINE = Duration.ofMinutes(2);

    JoinRules(TransportConformanceSuite suite) {
        super(suite);
    }

    static DataTransport longDeadlineInitiator(Fixture fx) {
        return fx.initiator(fx.config(Fixture.BLOCKS, Fixture.BLOCK_LENGTH, LONG_DEADLINE));
    }

    /** The three ways to block on a future. */
    enum Form {
        GET("get()"),
        GET_WITH_A_LIMIT("get(limit)"),
        JOIN("join()");

        final String call;

        Form(String call) {
            this.call = call;
        }

        /** Blocks on {@code f}; a limit, where the form has one, of {@code limit}. */
        void block(TransferFuture f, Duration limit) throws Exception {
            switch (this) {
                case GET -> f.get();
                case GET_WITH_A_LIMIT -> f.get(limit.toMillis(), TimeUnit.MILLISECONDS);
                case JOIN -> f.join();
            }
        }
    }

    @RuleTest(A9)
    public final void a9_aJoinedFutureCompletesWithinTheWakeBound() throws Exception {
        Fixture fx = fx();
        DataTransport t = longDeadlineInitiator(fx);
        TargetPeer target = fx.connectedTarget(t, "a");
        int block = 0;
        for (Form form : Form.values()) {
            int[] blocks = {block, block + 1};
            block += 2;
            long start = System.nanoTime();
            TransferFuture f = t.writeBlocksAsync("a", blocks, blocks);
            blockOn(fx, form, f, fx.env.timeout());
            long took = System.nanoTime() - start;
            assertTrue(took < fx.env.wake().toNanos(), fx.msg(form.call + " of the future of transfer "
                    + f.transferId() + " returned " + took / 1_000_000 + " ms after its submit (it ends in"
                    + " microseconds); the bound is " + fx.env.wake().toMillis() + " ms"));
            fx.assertWritten(target, blocks, blocks, "asynchronous WRITE " + f.transferId());
        }
        Fixture.Hold hold = fx.hold(t, target);
        if (hold == Fixture.Hold.NONE) {
            return; // the backend cannot hold a transfer: the part above is all that can be checked
        }
        for (Form form : Form.values()) {
            int[] blocks = {block};
            block++;
            fx.startHolding(hold, t, target);
            long heldSince = System.nanoTime();
            TransferFuture f = t.writeBlocksAsync("a", blocks, blocks);
            fx.stopDelaying(hold, t);
            Waiter<String> w = Waiter.start(fx, "blocked-" + form.name().toLowerCase(java.util.Locale.ROOT), () -> {
                blockOn(fx, form, f, fx.env.timeout().plus(fx.env.hold()));
                return "returned";
            });
            w.awaitParked(fx);
            fx.release(hold, target, heldSince);
            long released = System.nanoTime();
            w.result(fx, form.call + " of a held transfer's future");
            long took = System.nanoTime() - released;
            assertTrue(took < fx.env.wake().toNanos(), fx.msg("a thread parked in " + form.call + " of the future of"
                    + " transfer " + f.transferId() + " returned " + took / 1_000_000 + " ms after the transfer was"
                    + " let go; the bound is " + fx.env.wake().toMillis() + " ms"));
            fx.assertWritten(target, blocks, blocks, "asynchronous WRITE " + f.transferId());
        }
    }

    /** Blocks on {@code f} with {@code form}; fails unless the future completes normally within {@code limit}. */
    private static void blockOn(Fixture fx, Form form, TransferFuture f, Duration limit) throws Exception {
        try {
            form.block(f, limit);
        } catch (ExecutionException | CompletionException e) {
            throw new AssertionError(fx.msg(form.call + " of the future of transfer " + f.transferId() + " failed: "
                    + e.getCause()), e.getCause());
        } catch (TimeoutException e) {
            fail(fx.msg(form.call + " of the future of transfer " + f.transferId() + " did not return within "
                    + limit.toMillis() + " ms"));
        }
        assertTrue(f.isDone() && !f.isCompletedExceptionally(), fx.msg(form.call + " returned with the future of"
                + " transfer " + f.transferId() + " not done: " + f));
    }

    @RuleTest(A10)
    public final void a10_blockingOnAFutureHonoursLimitsInterruptsAndClose() throws Exception {
        Fixture fx = fx();
        DataTransport t = longDeadlineInitiator(fx);
        TargetPeer target = fx.connectedTarget(t, "a");
        Fixture.Hold hold = fx.hold(t, target);
        Assumptions.assumeTrue(hold != Fixture.Hold.NONE, () -> fx.msg("skipped: the rule needs a transfer held in"
                + " flight, and this harness can neither stall the target nor delay the initiator's completions"));
        fx.startHolding(hold, t, target);
        long heldSince = System.nanoTime();
        TransferFuture limited = t.writeBlocksAsync("a", new int[] {1}, new int[] {1});
        TransferFuture interrupted = t.writeBlocksAsync("a", new int[] {2}, new int[] {2});
        TransferFuture joined = t.writeBlocksAsync("a", new int[] {3}, new int[] {3});
        fx.stopDelaying(hold, t);

        long limitMillis = Math.max(1, Math.min(150, fx.env.hold().toMillis() / 5));
        long start = System.nanoTime();
        try {
            limited.get(limitMillis, TimeUnit.MILLISECONDS);
            fail(fx.msg("get(" + limitMillis + " ms) of the future of held transfer " + limited.transferId()
                    + " returned; expected TimeoutException"));
        } catch (TimeoutException expected) {
            long took = System.nanoTime() - start;
            assertTrue(took >= TimeUnit.MILLISECONDS.toNanos(limitMillis), fx.msg("get(" + limitMillis + " ms) threw"
                    + " TimeoutException after " + took / 1_000_000 + " ms, before its limit"));
            assertTrue(took < TimeUnit.MILLISECONDS.toNanos(limitMillis) + fx.env.wake().toNanos(), fx.msg("get("
                    + limitMillis + " ms) threw TimeoutException " + took / 1_000_000 + " ms after it began: its"
                    + " limit plus more than the bound of " + fx.env.wake().toMillis() + " ms"));
        }
        assertFalse(limited.isDone(), fx.msg("a get whose limit passed must leave the future pending: " + limited));

        Waiter<String> getter = Waiter.start(fx, "interrupted-get", () -> {
            try {
                interrupted.get();
                return "returned without InterruptedException";
            } catch (InterruptedException e) {
                return Thread.currentThread().isInterrupted() ? "threw InterruptedException with its interrupt"
                        + " status still set" : "ok";
            }
        });
        getter.awaitParked(fx);
        long interrupting = System.nanoTime();
        getter.thread().interrupt();
        assertEquals("ok", getter.result(fx, "an interrupted get"), fx.msg("a get interrupted while parked"));
        long took = System.nanoTime() - interrupting;
        assertTrue(took < fx.env.wake().toNanos(), fx.msg("a get returned " + took / 1_000_000 + " ms after its"
                + " thread was interrupted; the bound is " + fx.env.wake().toMillis() + " ms"));
        assertFalse(interrupted.isDone(), fx.msg("an interrupt ends the get, not the transfer: " + interrupted));

        Waiter<Boolean> joiner = Waiter.start(fx, "interrupted-join", () -> {
            joined.join();
            return Thread.currentThread().isInterrupted();
        });
        joiner.awaitParked(fx);
        joiner.thread().interrupt();
        fx.sleep(fx.env.quiet());
        if (hold == Fixture.Hold.STALL || System.nanoTime() - heldSince < fx.env.hold().toNanos() * 3 / 4) {
            assertFalse(joined.isDone(), fx.msg("the future of held transfer " + joined.transferId() + " completed"));
            assertTrue(joiner.thread().isAlive(), fx.msg("join returned on an interrupt; it is not interruptible"));
        }
        fx.release(hold, target, heldSince);
        assertTrue(joiner.result(fx, "an interrupted join"), fx.msg("join must keep the interrupt for its caller: its"
                + " thread's interrupt status was cleared"));
        for (TransferFuture f : new TransferFuture[] {limited, interrupted, joined}) {
            try {
                f.get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw new AssertionError(fx.msg("transfer " + f.transferId() + ", whose get or join was limited or"
                        + " interrupted, failed: " + e.getCause()), e.getCause());
            }
        }

        closeWakesABlockedJoin(fx, t, target, hold);
    }

    /** A thread parked in {@code join()} of a held transfer's future is woken by close, which fails the future. */
    private static void closeWakesABlockedJoin(Fixture fx, DataTransport t, TargetPeer target, Fixture.Hold hold)
            throws Exception {
        fx.startHolding(hold, t, target);
        TransferFuture f = t.writeBlocksAsync("a", new int[] {4}, new int[] {4});
        fx.stopDelaying(hold, t);
        Waiter<String> joiner = Waiter.start(fx, "closed-join", () -> {
            try {
                f.join();
                return "returned normally";
            } catch (CompletionException e) {
                return e.getCause() instanceof IllegalStateException ? "ok" : "threw " + e;
            }
        });
        joiner.awaitParked(fx);
        long closing = System.nanoTime();
        CompletableFuture<Object> close = fx.start("close", () -> {
            t.close();
            return null;
        });
        String outcome = joiner.result(fx, "a join ended by close");
        long took = System.nanoTime() - closing;
        fx.thaw(target);
        close.get(fx.env.timeout().toMillis() + fx.env.closeTimeout().toMillis(), TimeUnit.MILLISECONDS);
        assertEquals("ok", outcome, fx.msg("a join that close ended " + outcome + "; the future of a transfer the"
                + " close ended must fail with IllegalStateException"));
        assertTrue(took < fx.env.wake().toNanos(), fx.msg("a join returned " + took / 1_000_000 + " ms after close"
                + " began; the bound is " + fx.env.wake().toMillis() + " ms"));
    }
}
