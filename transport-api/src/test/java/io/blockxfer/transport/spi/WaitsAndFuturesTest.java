package io.blockxfer.transport.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransferFailedException;
import io.blockxfer.transport.TransferFuture;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.testing.ScriptedEngine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Waits and futures of the managed transport, over an engine whose outcomes the test decides:
 * one that fires the completion signal and one that does not (whose completions the transport's
 * completion thread finds by polling).
 */
class WaitsAndFuturesTest {

    private static final PeerDescriptor PEER = new PeerDescriptor("scripted", "", 4096, 16, 64, new byte[] {1});
    /** Generous: the machine may be loaded; the bounds only separate "woken" from "slept to the limit". */
    private static final long WAKE_BOUND_MILLIS = 2_000;

    private ScriptedEngine engine;
    private ManagedTransport transport;

    private void open(boolean signals, Duration transferTimeout) {
        TransportConfig config = TransportConfig.builder(RegionSpec.allocate(16, 64)).transferTimeout(transferTimeout)
                .closeTimeout(Duration.ofMillis(300)).build();
        engine = new ScriptedEngine(config, signals);
        transport = new ManagedTransport(engine, config, EnumSet.of(Capability.READ));
        transport.addPeer("p", PEER);
    }

    private void open(boolean signals) {
        open(signals, Duration.ofSeconds(60));
    }

    @AfterEach
    void close() {
        if (transport != null) {
            engine.completeAll(ScriptedEngine.DONE);
            transport.close();
        }
    }

    private long write() {
        return transport.writeBlocks("p", new int[] {1}, new int[] {2});
    }

    private static <T> CompletableFuture<T> inThread(java.util.concurrent.Callable<T> body) {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                f.complete(body.call());
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        return f;
    }

    /** Waits until a thread of the transport's waiters is parked (the engine heard of it, or the thread parks). */
    private void awaitParked(Thread waiter) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (waiter.getState() != Thread.State.TIMED_WAITING) {
            assertTrue(System.nanoTime() - end < 0, "the waiter never parked");
            Thread.sleep(1);
        }
    }

    // ------------------------------------------------------------------ limits and bad input

    @Test
    void badLimitsAreRefusedAndConsumeNothing() throws InterruptedException {
        open(false);
        long id = write();
        engine.last().status = ScriptedEngine.DONE;
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> transport.poll("p", -1, TimeUnit.MILLISECONDS));
        assertTrue(negative.getMessage().contains("-1"), negative.getMessage());
        IllegalArgumentException absurd = assertThrows(IllegalArgumentException.class,
                () -> transport.pollAll(25, TimeUnit.HOURS));
        assertTrue(absurd.getMessage().contains("24 hours"), absurd.getMessage());
        assertThrows(IllegalArgumentException.class, () -> transport.poll("p", (i, ok) -> { }, Long.MAX_VALUE,
                TimeUnit.DAYS));
        assertThrows(NullPointerException.class, () -> transport.pollAll(1, null));
        assertEquals(PollResult.of(new long[] {id}, new long[0]), transport.poll("p", 24, TimeUnit.HOURS));
    }

    @Test
    void aZeroLimitIsAPlainPollAndAnUnknownPeerReturnsAtOnce() throws InterruptedException {
        open(false);
        write();
        long start = System.nanoTime();
        assertSame(PollResult.EMPTY, transport.poll("p", 0, TimeUnit.SECONDS));
        assertSame(PollResult.EMPTY, transport.poll("nobody", 10, TimeUnit.SECONDS));
        assertEquals(0, transport.poll("nobody", (i, ok) -> { }, 10, TimeUnit.SECONDS));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "waits that must return at once waited");
    }

    @ParameterizedTest(name = "engine signals: {0}")
    @ValueSource(booleans = {true, false})
    void aWaitHonoursItsLimit(boolean signals) throws InterruptedException {
        open(signals);
        write();
        long start = System.nanoTime();
        assertSame(PollResult.EMPTY, transport.poll("p", 150, TimeUnit.MILLISECONDS));
        assertEquals(0, transport.pollAll((i, ok) -> { }, 150, TimeUnit.MILLISECONDS));
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(300), "a wait returned before its limit");
    }

    @Test
    void waitingAfterCloseThrows() {
        open(false);
        transport.close();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> transport.poll("p", 1, TimeUnit.SECONDS));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> transport.writeBlocksAsync("p", new int[] {0}, new int[] {0}));
    }

    // ------------------------------------------------------------------ waking

    @ParameterizedTest(name = "engine signals: {0}")
    @ValueSource(booleans = {true, false})
    void aParkedWaiterWakesWhenItsTransferEnds(boolean signals) throws Exception {
        open(signals);
        long id = write();
        ScriptedEngine.Transfer t = engine.last();
        AtomicReference<Thread> waiter = new AtomicReference<>();
        CompletableFuture<PollResult> result = inThread(() -> {
            waiter.set(Thread.currentThread());
            return transport.poll("p", 30, TimeUnit.SECONDS);
        });
        while (waiter.get() == null) {
            Thread.sleep(1);
        }
        awaitParked(waiter.get());
        assertFalse(result.isDone());
        long ended = System.nanoTime();
        engine.complete(t, ScriptedEngine.DONE);
        assertEquals(PollResult.of(new long[] {id}, new long[0]), result.get(30, TimeUnit.SECONDS));
        assertTrue(System.nanoTime() - ended < TimeUnit.MILLISECONDS.toNanos(WAKE_BOUND_MILLIS),
                "the waiter woke only " + (System.nanoTime() - ended) / 1_000_000 + " ms after its transfer ended");
        if (signals) {
            assertEquals(List.of(true, false), engine.callersWaiting, "the engine must hear that callers wait");
        }
    }

    @ParameterizedTest(name = "engine signals: {0}")
    @ValueSource(booleans = {true, false})
    void aWaiterMeetsTheDeadlineOfItsTransfer(boolean signals) throws Exception {
        open(signals, Duration.ofMillis(200));
        long id = write();
        long start = System.nanoTime();
        assertEquals(PollResult.of(new long[0], new long[] {id}), transport.poll("p", 20, TimeUnit.SECONDS));
        assertTrue(System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(200 + WAKE_BOUND_MILLIS),
                "the overdue transfer was reported late");
    }

    @Test
    void anInterruptedWaiterThrowsAndLosesNothing() throws Exception {
        open(true);
        long id = write();
        ScriptedEngine.Transfer t = engine.last();
        AtomicReference<Thread> waiter = new AtomicReference<>();
        CompletableFuture<Boolean> result = inThread(() -> {
            waiter.set(Thread.currentThread());
            try {
                transport.poll("p", 30, TimeUnit.SECONDS);
                return false;
            } catch (InterruptedException e) {
                return !Thread.currentThread().isInterrupted();
            }
        });
        while (waiter.get() == null) {
            Thread.sleep(1);
        }
        awaitParked(waiter.get());
        waiter.get().interrupt();
        assertTrue(result.get(10, TimeUnit.SECONDS), "the interrupt status must be cleared when it throws");
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> transport.pollAll(0, TimeUnit.SECONDS),
                "an interrupted thread must not start a wait");
        assertFalse(Thread.interrupted());
        engine.complete(t, ScriptedEngine.DONE);
        assertEquals(PollResult.of(new long[] {id}, new long[0]), transport.pollAll(5, TimeUnit.SECONDS));
    }

    @ParameterizedTest(name = "engine signals: {0}")
    @ValueSource(booleans = {true, false})
    void closeWakesWaitersAndFailsPendingFutures(boolean signals) throws Exception {
        open(signals);
        write();
        TransferFuture future = transport.writeBlocksAsync("p", new int[] {2}, new int[] {3});
        AtomicReference<Thread> waiter = new AtomicReference<>();
        CompletableFuture<PollResult> result = inThread(() -> {
            waiter.set(Thread.currentThread());
            return transport.poll("p", 30, TimeUnit.SECONDS);
        });
        while (waiter.get() == null) {
            Thread.sleep(1);
        }
        awaitParked(waiter.get());
        transport.close();
        ExecutionException e = assertThrows(ExecutionException.class, () -> result.get(10, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("closed while waiting"), e.getCause().getMessage());
        ExecutionException f = assertThrows(ExecutionException.class, () -> future.get(10, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, f.getCause());
        assertTrue(f.getCause().getMessage().contains("closed before transfer " + future.transferId()),
                f.getCause().getMessage());
    }

    // ------------------------------------------------------------------ futures

    @ParameterizedTest(name = "engine signals: {0}")
    @ValueSource(booleans = {true, false})
    void aFutureCompletesWithItsTransferAndItsIdIsNeverPolled(boolean signals) throws Exception {
        open(signals);
        TransferFuture done = transport.writeBlocksAsync("p", new int[] {1}, new int[] {1});
        ScriptedEngine.Transfer doneT = engine.last();
        TransferFuture failed = transport.readBlocksAsync("p", new int[] {2}, new int[] {2});
        ScriptedEngine.Transfer failedT = engine.last();
        long polled = write();
        assertEquals("p", done.peerId());
        assertEquals(done.transferId() + 2, polled);
        CompletableFuture<String> dependent = done.thenApply(v -> "after " + done.transferId());
        assertSame(CompletableFuture.class, dependent.getClass(), "dependents must be plain CompletableFutures");
        assertFalse(done.isDone());
        engine.complete(doneT, ScriptedEngine.DONE);
        engine.complete(failedT, ScriptedEngine.FAILED);
        assertEquals("after " + done.transferId(), dependent.get(10, TimeUnit.SECONDS));
        ExecutionException e = assertThrows(ExecutionException.class, () -> failed.get(10, TimeUnit.SECONDS));
        TransferFailedException tf = assertInstanceOf(TransferFailedException.class, e.getCause());
        assertEquals(failed.transferId(), tf.transferId());
        assertEquals("p", tf.peerId());
        engine.last().status = ScriptedEngine.DONE;
        assertEquals(PollResult.of(new long[] {polled}, new long[0]), transport.pollAll(5, TimeUnit.SECONDS),
                "only the polled transfer may be reported");
        assertSame(PollResult.EMPTY, transport.pollAll());
    }

    @Test
    void anUnknownPeerGivesAFailedFutureAndAFailedSubmitAFailedOne() {
        open(true);
        TransferFuture unknown = transport.writeBlocksAsync("nobody", new int[] {0}, new int[] {0});
        assertEquals(DataTransport.NOT_SUBMITTED, unknown.transferId());
        assertTrue(unknown.isCompletedExceptionally());
        TransferFailedException e = assertInstanceOf(TransferFailedException.class,
                assertThrows(CompletionException.class, unknown::join).getCause());
        assertTrue(e.getMessage().contains("not submitted"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> transport.writeBlocksAsync("p", new int[] {16},
                new int[] {0}));
        engine.submitFailure = new IllegalStateException("native post failed");
        TransferFuture refused = transport.writeBlocksAsync("p", new int[] {0}, new int[] {0});
        assertTrue(refused.isCompletedExceptionally(), "a submit the engine refused must fail its future at once");
        assertSame(PollResult.EMPTY, transport.pollAll());
    }

    @ParameterizedTest(name = "engine signals: {0}")
    @ValueSource(booleans = {true, false})
    void cancellingAFutureCancelsItsTransferAndBothCancelModesReachFutures(boolean signals) throws Exception {
        open(signals);
        TransferFuture a = transport.writeBlocksAsync("p", new int[] {1}, new int[] {1});
        ScriptedEngine.Transfer at = engine.last();
        assertTrue(a.cancel(true));
        assertTrue(a.isCancelled());
        assertArrayEquals(new long[0], transport.cancel(new long[] {a.transferId()}, CancelMode.WAIT),
                "the cancelled future's transfer must not be tracked any more");
        assertFalse(at.released, "a transfer in flight must be kept until it ends");
        TransferFuture b = transport.writeBlocksAsync("p", new int[] {2}, new int[] {2});
        assertArrayEquals(new long[0], transport.cancel(new long[] {b.transferId()}, CancelMode.IMMEDIATE));
        assertThrows(CancellationException.class, () -> b.get(10, TimeUnit.SECONDS));
        TransferFuture c = transport.writeBlocksAsync("p", new int[] {3}, new int[] {3});
        ScriptedEngine.Transfer ct = engine.last();
        assertArrayEquals(new long[] {c.transferId()}, transport.cancel(new long[] {c.transferId()}, CancelMode.WAIT));
        assertFalse(c.isDone());
        engine.complete(ct, ScriptedEngine.DONE);
        c.get(10, TimeUnit.SECONDS);
        engine.complete(at, ScriptedEngine.DONE);
        assertSame(PollResult.EMPTY, transport.pollAll());
        assertTrue(at.released);
        assertFalse(a.cancel(true), "cancelling a completed future does nothing");
    }

    @ParameterizedTest(name = "engine signals: {0}")
    @ValueSource(booleans = {true, false})
    void futuresFailWhenTheirPeerIsRemovedOrTheirDeadlinePasses(boolean signals) throws Exception {
        open(signals, Duration.ofMillis(300));
        TransferFuture removed = transport.writeBlocksAsync("p", new int[] {1}, new int[] {1});
        transport.removePeer("p");
        ExecutionException e = assertThrows(ExecutionException.class, () -> removed.get(10, TimeUnit.SECONDS));
        assertTrue(e.getCause().getMessage().contains("its peer was removed"), e.getCause().getMessage());
        transport.addPeer("p", PEER);
        TransferFuture overdue = transport.writeBlocksAsync("p", new int[] {1}, new int[] {1});
        long start = System.nanoTime();
        e = assertThrows(ExecutionException.class, () -> overdue.get(10, TimeUnit.SECONDS));
        assertTrue(e.getCause().getMessage().contains("missed its deadline"), e.getCause().getMessage());
        assertTrue(System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(300 + WAKE_BOUND_MILLIS),
                "the overdue future failed late");
    }

    @Test
    void aFutureIsCompletedByTheCompletionThreadWithoutAnyPoll() throws Exception {
        open(true);
        List<TransferFuture> futures = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            futures.add(transport.writeBlocksAsync("p", new int[] {i}, new int[] {i}));
        }
        Thread.sleep(50);
        engine.completeAll(ScriptedEngine.DONE);
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        assertTrue(futures.stream().noneMatch(CompletableFuture::isCompletedExceptionally));
        try {
            futures.get(0).get(0, TimeUnit.SECONDS);
        } catch (TimeoutException impossible) {
            throw new AssertionError(impossible);
        }
    }
}
