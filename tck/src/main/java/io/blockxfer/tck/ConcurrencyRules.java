package io.blockxfer.tck;

import static io.blockxfer.tck.ConformanceRules.S1;
import static io.blockxfer.tck.ConformanceRules.S2;
import static io.blockxfer.tck.ConformanceRules.S3;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.DataTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * S: many threads at once: sessions of different peers, a stress with a ledger of every id, and
 * close racing with everything else.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class ConcurrencyRules extends RuleGroup {

    ConcurrencyRules(TransportConformanceSuite suite) {
        super(suite);
    }

    @RuleTest(S1)
    public final void s1_concurrentSessions() throws Exception {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        int sessions = 4;
        List<TargetPeer> targets = new ArrayList<>();
        for (int s = 0; s < sessions; s++) {
            targets.add(fx.connectedTarget(t, "s" + s));
        }
        List<CompletableFuture<Object>> runs = new ArrayList<>();
        CountDownLatch start = new CountDownLatch(sessions);
        for (int s = 0; s < sessions; s++) {
            int session = s;
            runs.add(fx.start("session " + s, () -> {
                start.countDown();
                start.await(10, TimeUnit.SECONDS);
                List<Long> ids = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    int b = (session * 16 + i) % Fixture.BLOCKS;
                    ids.add(fx.write(t, "s" + session, b, b));
                }
                fx.assertAllDone(fx.await(t, "s" + session, ids));
                return null;
            }));
        }
        for (CompletableFuture<Object> r : runs) {
            try {
                r.get(fx.env.timeout().toMillis() * 2, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof AssertionError ae ? ae
                        : new AssertionError(fx.msg("a session failed: " + e.getCause()), e.getCause());
            } catch (TimeoutException e) {
                fail(fx.msg("a session did not finish"));
            }
        }
        for (int s = 0; s < sessions; s++) {
            for (int i = 0; i < 100; i++) {
                int b = (s * 16 + i) % Fixture.BLOCKS;
                fx.assertTargetBlock(targets.get(s), b, BlockPattern.seed(Fixture.LOCAL, b), "session " + s);
            }
        }
    }

    @RuleTest(S2)
    public final void s2_stressLedger() throws Exception {
        Fixture fx = fx();
        StressRun run = new StressRun(fx, fx.initiator(), 3);
        run.run(fx.env.stress());
        run.verify();
        assertTrue(run.submitted() > 0, fx.msg("the stress submitted nothing"));
    }

    @RuleTest(S3)
    public final void s3_closeRacingCalls() throws Exception {
        Fixture fx = fx();
        DataTransport t = fx.initiator(fx.config(Fixture.BLOCKS, Fixture.BLOCK_LENGTH, fx.env.timeout(),
                Duration.ofSeconds(2)));
        fx.connectedTarget(t, "a");
        fx.connectedTarget(t, "b");
        Queue<Throwable> wrong = new ConcurrentLinkedQueue<>();
        AtomicLong calls = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        List<CompletableFuture<Object>> racers = new ArrayList<>();
        try {
            race(fx, t, racers, wrong, calls, stop);
        } finally {
            stop.set(true);
        }
    }

    private static void race(Fixture fx, DataTransport t, List<CompletableFuture<Object>> racers,
            Queue<Throwable> wrong, AtomicLong calls, AtomicBoolean stop) throws Exception {
        AtomicLong recent = new AtomicLong(-1);
        racers.add(fx.start("submitter", () -> race(wrong, calls, stop, () -> {
            long id = t.writeBlocks(ThreadLocalRandom.current().nextBoolean() ? "a" : "b", new int[] {1}, new int[] {1});
            if (id >= 0) {
                recent.set(id);
            }
        })));
        racers.add(fx.start("poller", () -> race(wrong, calls, stop, () -> {
            t.poll("a");
            t.pollAll((id, ok) -> { });
            t.poll("b", (id, ok) -> { });
        })));
        racers.add(fx.start("canceller", () -> race(wrong, calls, stop, () -> {
            t.cancel(new long[] {recent.get()}, ThreadLocalRandom.current().nextBoolean() ? CancelMode.WAIT
                    : CancelMode.IMMEDIATE);
        })));
        long warm = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (calls.get() < 1_000 && System.nanoTime() - warm < 0) {
            fx.sleep(Duration.ofMillis(5));
        }
        fx.within(Duration.ofSeconds(10), "close racing submits, polls and cancels", () -> {
            t.close();
            return null;
        });
        for (CompletableFuture<Object> r : racers) {
            try {
                r.get(5, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                fail(fx.msg("a call racing close did not return within 5 s after close"));
            }
        }
        if (!wrong.isEmpty()) {
            Throwable first = wrong.peek();
            throw new AssertionError(fx.msg("a call racing close threw " + first + " (only IllegalStateException is"
                    + " allowed)"), first);
        }
    }

    /** Calls {@code body} until it throws; an IllegalStateException ends it quietly, anything else is noted. */
    private static @Nullable Object race(Queue<Throwable> wrong, AtomicLong calls, AtomicBoolean stop, Runnable body) {
        while (!stop.get()) {
            try {
                body.run();
                calls.incrementAndGet();
            } catch (IllegalStateException closed) {
                return null;
            } catch (Throwable e) {
                wrong.add(e);
                return null;
            }
        }
        return null;
    }
}
