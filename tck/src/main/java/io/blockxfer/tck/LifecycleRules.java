package io.blockxfer.tck;

import static io.blockxfer.tck.ConformanceRules.L1;
import static io.blockxfer.tck.ConformanceRules.L2;
import static io.blockxfer.tck.ConformanceRules.L3;
import static io.blockxfer.tck.ConformanceRules.L4;
import static io.blockxfer.tck.ConformanceRules.L5;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.junit.jupiter.api.Assumptions;

/**
 * L: close is idempotent, waits for what is in flight (bounded), releases its threads, and ends
 * every later call with {@link IllegalStateException}.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class LifecycleRules extends RuleGroup {

    /** Threads of the JDK and of the kit that may come and go around a transport's life. */
    private static final List<String> NOT_THE_TRANSPORTS = List.of("process reaper", "ForkJoinPool", "Common-Cleaner",
            "Attach Listener", "child-jvm-", "child-process-", "tck-", "junit-", "Signal Dispatcher",
            "Notification Thread", "JFR ", "RMI ", "surefire-", "Reference Handler", "Finalizer");

    LifecycleRules(TransportConformanceSuite suite) {
        super(suite);
    }

    private static CompletableFuture<Object> closing(Fixture fx, DataTransport t, String what) {
        return fx.start(what, () -> {
            t.close();
            return null;
        });
    }

    private static void join(Fixture fx, CompletableFuture<Object> f, Duration bound, String what) {
        try {
            f.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            fail(fx.msg(what + " did not return within " + bound.toMillis() + " ms"));
        } catch (ExecutionException e) {
            throw new AssertionError(fx.msg(what + " threw " + e.getCause()), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail(fx.msg("interrupted waiting for " + what));
        }
    }

    @RuleTest(L1)
    public final void l1_closeIdempotent() {
        Fixture fx = fx();
        DataTransport t = fx.initiator(fx.config(Fixture.BLOCKS, Fixture.BLOCK_LENGTH,
                fx.env.timeout().multipliedBy(3), Duration.ofSeconds(10)));
        TargetPeer a = fx.connectedTarget(t, "a");
        boolean held = fx.canHold(a);
        if (held) {
            fx.stall(a);
        }
        fx.write(t, "a", 0, 0);
        CompletableFuture<Object> first = closing(fx, t, "first close");
        fx.sleep(Duration.ofMillis(200));
        CompletableFuture<Object> second = closing(fx, t, "second close");
        fx.sleep(Duration.ofMillis(300));
        if (held && !first.isDone()) {
            assertFalse(second.isDone(), fx.msg("a close racing another close returned while the first was still"
                    + " closing (it waits for a transfer held in flight)"));
        }
        if (held) {
            fx.thaw(a);
        }
        join(fx, first, Duration.ofSeconds(15), "the first close");
        join(fx, second, Duration.ofSeconds(15), "a close racing another close");
        assertDoesNotThrow(t::close, fx.msg("a third close threw"));
        CompletableFuture<Object> x = closing(fx, t, "a close from another thread after close");
        join(fx, x, Duration.ofSeconds(15), "a close from another thread after close");
    }

    @RuleTest(L2)
    public final void l2_useAfterClose() {
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        fx.write(t, "a", 0, 0);
        t.close();
        Map<String, Consumer<DataTransport>> calls = new LinkedHashMap<>();
        calls.put("writeBlocks", x -> x.writeBlocks("a", new int[] {0}, new int[] {0}));
        calls.put("writeBlocks to an unknown peer", x -> x.writeBlocks("nobody", new int[] {0}, new int[] {0}));
        if (fx.has(Capability.READ)) {
            calls.put("readBlocks", x -> x.readBlocks("a", new int[] {0}, new int[] {0}));
        }
        calls.put("poll", x -> x.poll("a"));
        calls.put("poll of an unknown peer", x -> x.poll("nobody"));
        calls.put("poll(handler)", x -> x.poll("a", (id, ok) -> { }));
        calls.put("pollAll", DataTransport::pollAll);
        calls.put("pollAll(handler)", x -> x.pollAll((id, ok) -> { }));
        calls.put("cancel", x -> x.cancel(new long[] {0}, CancelMode.WAIT));
        calls.put("cancel of nothing", x -> x.cancel(new long[0], CancelMode.IMMEDIATE));
        calls.put("addPeer", x -> x.addPeer("b", a.descriptor()));
        calls.put("addPeerAsync", x -> {
            var unused = x.addPeerAsync("b", a.descriptor()); // must throw before it returns a future
        });
        calls.put("removePeer", x -> x.removePeer("a"));
        calls.put("removePeer of an unknown peer", x -> x.removePeer("nobody"));
        calls.put("localDescriptor", DataTransport::localDescriptor);
        calls.put("agentMetadata", DataTransport::agentMetadata);
        calls.put("region", DataTransport::region);
        calls.put("feature", x -> x.feature(Object.class));
        calls.forEach((name, call) -> {
            var e = assertThrows(IllegalStateException.class, () -> call.accept(t), fx.msg(name + " after close"));
            assertNotNull(e.getMessage(), fx.msg(name + ": exception without a message"));
        });
    }

    @RuleTest(L3)
    public final void l3_closeWaitsBounded() throws Exception {
        Fixture fx = fx();
        Duration closeTimeout = Duration.ofSeconds(5);
        DataTransport t = fx.initiator(fx.config(Fixture.BLOCKS, Fixture.BLOCK_LENGTH, fx.env.timeout().multipliedBy(3), closeTimeout));
        TargetPeer a = fx.connectedTarget(t, "a");
        Fixture.Hold hold = fx.hold(t, a);
        if (hold != Fixture.Hold.NONE) {
            long since = System.nanoTime();
            fx.startHolding(hold, t, a);
            for (int i = 0; i < 4; i++) {
                fx.write(t, "a", i, i);
            }
            fx.stopDelaying(hold, t);
            CompletableFuture<Object> closing = closing(fx, t, "close");
            fx.sleep(Duration.ofMillis(500));
            assertFalse(closing.isDone(), fx.msg("close returned while transfers were held in flight (" + hold
                    + "); it must wait for them, up to its closeTimeout of " + closeTimeout.toMillis() + " ms"));
            fx.release(hold, a, since);
            join(fx, closing, Duration.ofSeconds(5), "close, after the held transfers could end");
        }
        Duration shortTimeout = Duration.ofSeconds(1);
        DataTransport u = fx.initiator(fx.config(Fixture.BLOCKS, Fixture.BLOCK_LENGTH, fx.env.timeout().multipliedBy(3), shortTimeout));
        TargetPeer b = fx.connectedTarget(u, "b");
        boolean stalled = b.canStall();
        if (stalled) {
            fx.stall(b);
        }
        for (int i = 0; i < (stalled ? 4 : 64); i++) {
            u.writeBlocks("b", Fixture.range(0, 32), Fixture.range(32, 32));
        }
        long start = System.nanoTime();
        Duration bound = shortTimeout.plusSeconds(5);
        fx.within(bound.plusSeconds(5), "close with transfers in flight", () -> {
            u.close();
            return null;
        });
        long tookMillis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(tookMillis <= bound.toMillis(), fx.msg("close took " + tookMillis + " ms with a closeTimeout of "
                + shortTimeout.toMillis() + " ms"));
        if (fx.canHold(b)) {
            assertTrue(tookMillis >= shortTimeout.toMillis() - 100, fx.msg("close returned after " + tookMillis
                    + " ms, before its closeTimeout of " + shortTimeout.toMillis() + " ms, while transfers to a"
                    + " stalled target were in flight"));
        }
        if (stalled) {
            fx.thaw(b);
        }
    }

    @RuleTest(L4)
    public final void l4_closeWaitsForCancelled() {
        Fixture fx = fx();
        DataTransport t = fx.initiator(fx.config(Fixture.BLOCKS, Fixture.BLOCK_LENGTH, fx.env.timeout(),
                Duration.ofSeconds(5)));
        TargetPeer a = fx.connectedTarget(t, "a");
        Fixture.Hold hold = fx.hold(t, a);
        Assumptions.assumeTrue(hold != Fixture.Hold.NONE, () -> fx.msg("skipped: the harness cannot hold a transfer"
                + " in flight (no stall that holds, no initiator faults)"));
        long since = System.nanoTime();
        fx.startHolding(hold, t, a);
        long[] ids = {fx.write(t, "a", 0, 0), fx.write(t, "a", 1, 1)};
        fx.stopDelaying(hold, t);
        assertEquals(0, t.cancel(ids, CancelMode.IMMEDIATE).length, fx.msg("immediate cancel returned ids"));
        CompletableFuture<Object> closing = closing(fx, t, "close");
        fx.sleep(Duration.ofMillis(500));
        assertFalse(closing.isDone(), fx.msg("close returned while transfers cancelled immediately were still held in"
                + " flight (" + hold + "): their native handles must be kept until they are terminal"));
        fx.release(hold, a, since);
        join(fx, closing, Duration.ofSeconds(5), "close, after the cancelled transfers could end");
    }

    @RuleTest(L5)
    public final void l5_closeEndsThreads() {
        Fixture fx = fx();
        cycle(fx);
        Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
        cycle(fx);
        Duration grace = fx.env.shortWait();
        long deadline = System.nanoTime() + grace.toNanos();
        List<String> left;
        do {
            left = new ArrayList<>();
            for (Thread th : Thread.getAllStackTraces().keySet()) {
                if (th.isAlive() && !before.contains(th) && NOT_THE_TRANSPORTS.stream().noneMatch(
                        p -> th.getName().startsWith(p))) {
                    left.add(th.getName());
                }
            }
            if (left.isEmpty()) {
                return;
            }
            fx.sleep(Duration.ofMillis(50));
        } while (System.nanoTime() - deadline < 0);
        fail(fx.msg("threads started during a transport's life are still running " + grace.toMillis() + " ms after it"
                + " and its peer were closed: " + left));
    }

    /** Opens an initiator and a target, moves blocks both ways, registers asynchronously, closes both. */
    private static void cycle(Fixture fx) {
        DataTransport t = fx.initiator();
        TargetPeer target = fx.target();
        try {
            t.addPeerAsync("a", target.descriptor()).get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError(fx.msg("addPeerAsync: " + e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(fx.msg("interrupted"), e);
        }
        List<Long> ids = new ArrayList<>(List.of(fx.write(t, "a", 0, 0)));
        if (fx.has(Capability.READ)) {
            ids.add(fx.submit(t, false, "a", new int[] {1}, new int[] {1}));
        }
        fx.assertAllDone(fx.await(t, "a", ids));
        t.close();
        target.close();
    }
}
