package io.blockxfer.transport.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransferFailedException;
import io.blockxfer.transport.TransferFuture;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.testing.ScriptedEngine;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A thread blocked on a transfer's future ({@code get}, {@code join}) behaves as a wait of the
 * transfer's peer: it drives the engine itself and completes its future on its own thread, parks
 * as a waiting caller woken by the engine's signal (or the status thread's), and honours limits,
 * interrupts, deadlines and close; a future completed by another thread wakes it; dependents run
 * on the thread that completes the future, a chain of them on that one thread. Over an engine
 * whose outcomes the test decides, and whose transfers end only when a caller's thread (never the
 * transport's completion thread) drives it where a rule is about driving.
 */
@Timeout(120)
class JoiningFuturesTest {

    private static final PeerDescriptor PEER = new PeerDescriptor("scripted", "", 4096, 16, 64, new byte[] {1});
    /** Generous: the machine may be loaded; the bounds only separate "woken" from "slept to the limit". */
    private static final long WAKE_BOUND_MILLIS = 2_000;
    /** The part of the completion thread's name that says it is the transport's own thread. */
    private static final String COMPLETION_THREAD = "-completions-";

    private ScriptedEngine engine;
    private ManagedTransport transport;

    private void open(boolean signals, Duration transferTimeout) {
        TransportConfig config = TransportConfig.builder(RegionSpec.allocate(16, 64)).transferTimeout(transferTimeout)
                .closeTimeout(Duration.ofMillis(300)).build();
        engine = new ScriptedEngine(config, signals);
        transport = new ManagedTransport(engine, config, java.util.EnumSet.of(Capability.READ));
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

    private TransferFuture writeAsync(int block) {
        return transport.writeBlocksAsync("p", new int[] {block}, new int[] {block});
    }

    /** Runs {@code body} on a platform thread of its own; the reference receives the thread. */
    private static <T> CompletableFuture<T> inThread(AtomicReference<Thread> thread, Callable<T> body) {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread t = Thread.ofPlatform().daemon().unstarted(() -> {
            try {
                f.complete(body.call());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        });
        thread.set(t);
        t.start();
        return f;
    }

    private static void awaitParked(Thread blocked) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (blocked.getState() != Thread.State.TIMED_WAITING && blocked.getState() != Thread.State.WAITING) {
            assertTrue(System.nanoTime() - end < 0, "the blocked thread never parked");
            Thread.sleep(1);
        }
    }

    private static void assertWithinWakeBound(long sinceNanos, String what) {
        long took = System.nanoTime() - sinceNanos;
        assertTrue(took < TimeUnit.MILLISECONDS.toNanos(WAKE_BOUND_MILLIS), what + " took " + took / 1_000_000
                + " ms; the bound is " + WAKE_BOUND_MILLIS + " ms");
    }

    // ------------------------------------------------------------------ driving

    @ParameterizedTest(name = "engine signals: {0}")
    @ValueSource(booleans = {true, false})
    void getAndJoinDriveTheTransportOnTheirOwnThread(boolean signals) throws Exception {
        open(signals);
        engine.progressEnds = ScriptedEngine.DONE;
        engine.notDrivenBy = COMPLETION_THREAD; // only a caller's thread ends a transfer
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            writeAsync(1).join();
            writeAsync(2).get();
            writeAsync(3).get(10, TimeUnit.SECONDS);
        }, "a thread blocked on a future must drive the engine itself; nothing else ends these transfers");
        assertFalse(engine.callersWaiting.contains(true), "a future whose transfer ends while its thread drives"
                + " never needs to park: " + engine.callersWaiting);
    }

    @ParameterizedTest(name = "engine signals: {0}")
    @ValueSource(booleans = {true, false})
    void aBlockedThreadParksAsAWaitingCallerAndWakesWhenItsTransferEnds(boolean signals) throws Exception {
        open(signals);
        TransferFuture f = writeAsync(1);
        ScriptedEngine.Transfer t = engine.last();
        AtomicReference<Thread> blocked = new AtomicReference<>();
        CompletableFuture<Void> got = inThread(blocked, () -> f.get(30, TimeUnit.SECONDS));
        awaitParked(blocked.get());
        assertFalse(got.isDone());
        assertTrue(engine.callersWaiting.contains(true), "a parked get must count as a waiting caller, so that the"
                + " engine drives its transfers itself: " + engine.callersWaiting);
        long ended = System.nanoTime();
        engine.complete(t, ScriptedEngine.DONE);
        got.get(30, TimeUnit.SECONDS);
        assertWithinWakeBound(ended, "the parked get's return after its transfer ended");
    }

    // ------------------------------------------------------------------ limits, interrupts, deadlines, close

    @ParameterizedTest(name = "engine signals: {0}")
    @ValueSource(booleans = {true, false})
    void aTimedGetThrowsAtItsLimitAndTheFutureStillCompletesWithItsTransfer(boolean signals) throws Exception {
        open(signals);
        TransferFuture f = writeAsync(1);
        ScriptedEngine.Transfer t = engine.last();
        long start = System.nanoTime();
        assertThrows(TimeoutException.class, () -> f.get(150, TimeUnit.MILLISECONDS));
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(150), "a get returned before its limit");
        assertThrows(TimeoutException.class, () -> f.get(0, TimeUnit.SECONDS), "a zero limit is a look");
        assertFalse(f.isDone());
        long ended = System.nanoTime();
        engine.complete(t, ScriptedEngine.DONE);
        while (!f.isDone()) { // nobody blocks on it now: the completion thread must complete it
            assertTrue(System.nanoTime() - ended < TimeUnit.MILLISECONDS.toNanos(WAKE_BOUND_MILLIS),
                    "a future nobody blocks on any more was never completed");
            Thread.sleep(1);
        }
        f.get(0, TimeUnit.SECONDS);
    }

    @Test
    void anInterruptedGetThrowsAndLeavesItsTransferInFlight() throws Exception {
        open(true);
        TransferFuture f = writeAsync(1);
        ScriptedEngine.Transfer t = engine.last();
        AtomicReference<Thread> blocked = new AtomicReference<>();
        CompletableFuture<String> got = inThread(blocked, () -> {
            try {
                f.get();
                return "returned";
            } catch (InterruptedException e) {
                return Thread.currentThread().isInterrupted() ? "threw with its interrupt status set" : "ok";
            }
        });
        awaitParked(blocked.get());
        blocked.get().interrupt();
        assertEquals("ok", got.get(10, TimeUnit.SECONDS));
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> f.get(1, TimeUnit.SECONDS), "an interrupted thread must not"
                + " start blocking");
        assertFalse(Thread.interrupted());
        assertFalse(f.isDone(), "an interrupt ends the get, not the transfer");
        engine.complete(t, ScriptedEngine.DONE);
        f.get(WAKE_BOUND_MILLIS, TimeUnit.MILLISECONDS);
    }

    @Test
    void joinIsNotInterruptibleAndKeepsTheInterruptForItsCaller() throws Exception {
        open(true);
        TransferFuture f = writeAsync(1);
        ScriptedEngine.Transfer t = engine.last();
        AtomicReference<Thread> blocked = new AtomicReference<>();
        CompletableFuture<Boolean> joined = inThread(blocked, () -> {
            f.join();
            return Thread.currentThread().isInterrupted();
        });
        awaitParked(blocked.get());
        blocked.get().interrupt();
        Thread.sleep(100);
        assertFalse(joined.isDone(), "join returned on an interrupt");
        engine.complete(t, ScriptedEngine.DONE);
        assertTrue(joined.get(WAKE_BOUND_MILLIS, TimeUnit.MILLISECONDS), "join must set the interrupt status again");
    }

    @ParameterizedTest(name = "engine signals: {0}")
    @ValueSource(booleans = {true, false})
    void aBlockedThreadMeetsTheDeadlineOfItsTransfer(boolean signals) throws Exception {
        open(signals, Duration.ofMillis(200));
        TransferFuture f = writeAsync(1);
        long start = System.nanoTime();
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(20, TimeUnit.SECONDS));
        TransferFailedException tf = assertInstanceOf(TransferFailedException.class, e.getCause());
        assertTrue(tf.getMessage().contains("missed its deadline"), tf.getMessage());
        assertTrue(System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(200 + WAKE_BOUND_MILLIS),
                "the overdue future failed late");
    }

    @ParameterizedTest(name = "engine signals: {0}")
    @ValueSource(booleans = {true, false})
    void closeWakesABlockedThreadWhoseFutureFailsWithTheClose(boolean signals) throws Exception {
        open(signals);
        TransferFuture f = writeAsync(1);
        AtomicReference<Thread> blocked = new AtomicReference<>();
        CompletableFuture<Void> joined = inThread(blocked, f::join);
        awaitParked(blocked.get());
        long closing = System.nanoTime();
        transport.close();
        // join threw a CompletionException, which the thread's own future unwraps
        ExecutionException e = assertThrows(ExecutionException.class, () -> joined.get(10, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("closed before transfer " + f.transferId()),
                e.getCause().getMessage());
        assertWithinWakeBound(closing, "the blocked join's return after close");
    }

    @Test
    void aFutureEndedByAnotherThreadWakesTheThreadBlockedOnIt() throws Exception {
        open(true);
        TransferFuture cancelled = writeAsync(1);
        AtomicReference<Thread> blocked = new AtomicReference<>();
        CompletableFuture<Void> got = inThread(blocked, () -> cancelled.get(30, TimeUnit.SECONDS));
        awaitParked(blocked.get());
        long cancelling = System.nanoTime();
        transport.cancel(new long[] {cancelled.transferId()}, CancelMode.IMMEDIATE);
        assertThrows(CancellationException.class, () -> got.get(10, TimeUnit.SECONDS));
        assertWithinWakeBound(cancelling, "a get's return after another thread cancelled its transfer");

        TransferFuture byHand = writeAsync(2);
        CompletableFuture<Void> joined = inThread(blocked, byHand::join);
        awaitParked(blocked.get());
        long completing = System.nanoTime();
        byHand.complete(null);
        joined.get(10, TimeUnit.SECONDS);
        assertWithinWakeBound(completing, "a join's return after another thread completed its future by hand");
    }

    // ------------------------------------------------------------------ dependents and the completion thread

    @ParameterizedTest(name = "engine signals: {0}")
    @ValueSource(booleans = {true, false})
    void aChainOfDependentsRunsOnTheThreadThatCompletesTheFuture(boolean signals) throws Exception {
        open(signals);
        engine.progressEnds = ScriptedEngine.DONE;
        engine.notDrivenBy = COMPLETION_THREAD;
        List<Thread> ranOn = new CopyOnWriteArrayList<>();
        TransferFuture joined = writeAsync(1);
        CompletableFuture<Integer> chain = joined.thenApply(v -> record(ranOn, 1)).thenApply(n -> record(ranOn, n + 1))
                .thenApply(n -> record(ranOn, n + 1));
        joined.join();
        assertEquals(3, chain.getNow(-1), "the chain must have run by the time join returned");
        // the dependents woke the completion thread, which may take the ended transfer first
        assertEquals(3, ranOn.size());
        assertTrue(ranOn.stream().allMatch(t -> t == ranOn.get(0)) && (ranOn.get(0) == Thread.currentThread()
                || ranOn.get(0).getName().contains(COMPLETION_THREAD)), "each stage must run on the thread that"
                + " completed the future, the joining thread or the completion thread, one after another: " + ranOn);

        engine.progressEnds = ScriptedEngine.PENDING;
        ranOn.clear();
        TransferFuture left = writeAsync(2);
        chain = left.thenApply(v -> record(ranOn, 1)).thenApply(n -> record(ranOn, n + 1))
                .thenApply(n -> record(ranOn, n + 1));
        engine.complete(engine.last(), ScriptedEngine.DONE);
        assertEquals(3, chain.get(WAKE_BOUND_MILLIS, TimeUnit.MILLISECONDS));
        assertEquals(3, ranOn.size());
        assertTrue(ranOn.stream().allMatch(t -> t == ranOn.get(0)) && ranOn.get(0).getName()
                .contains(COMPLETION_THREAD), "a chain nobody blocks on must run on the completion thread, every"
                + " stage on it: " + ranOn);
    }

    @ParameterizedTest(name = "engine signals: {0}")
    @ValueSource(booleans = {true, false})
    void aDependentAddedAfterItsTransferEndedRunsAtOnceOnTheAddingThread(boolean signals) throws Exception {
        open(signals);
        engine.progressEnds = ScriptedEngine.DONE;
        engine.notDrivenBy = COMPLETION_THREAD; // only the adding thread's first look can end the transfer
        List<Thread> ranOn = new CopyOnWriteArrayList<>();
        CompletableFuture<Integer> dependent = writeAsync(1).thenApply(v -> record(ranOn, 1));
        assertTrue(dependent.isDone(), "adding a dependent to a future whose transfer had ended must look at its"
                + " peer and run the dependent at once, with no hand-off");
        assertEquals(List.of(Thread.currentThread()), ranOn, "the dependent must run on the thread that added it");
    }

    @ParameterizedTest(name = "engine signals: {0}")
    @ValueSource(booleans = {true, false})
    void futuresGivenDependentsDoNotWakeTheCompletionThreadAtEachSubmit(boolean signals) throws Exception {
        open(signals);
        engine.progressEnds = ScriptedEngine.DONE;
        engine.notDrivenBy = COMPLETION_THREAD;
        engine.countedThread = COMPLETION_THREAD;
        writeAsync(0).thenRun(() -> { }).get(WAKE_BOUND_MILLIS, TimeUnit.MILLISECONDS);
        Thread.sleep(50); // the completion thread, woken by the first submit, has stopped attending
        int before = engine.countedProgress.get();
        int submits = 200;
        for (int i = 0; i < submits; i++) {
            assertTrue(writeAsync(i % 16).thenRun(() -> { }).isDone(), "the adding thread's first look ends it");
        }
        int woken = engine.countedProgress.get() - before;
        assertTrue(woken < submits / 4, "once futures are given dependents, a submit must not wake the completion"
                + " thread (the dependent's first look ends the transfer): it drove the engine " + woken
                + " times in " + submits + " submits");
    }

    /**
     * Opens over an engine whose transfers the joining thread's first look ends, with the
     * completion thread's drives counted, and joins three futures, so that the transport learns
     * its futures are joined; then waits until the completion thread, woken by those submits,
     * stops attending.
     */
    private void openWithJoinedFutures(boolean signals) throws InterruptedException {
        open(signals);
        engine.progressEnds = ScriptedEngine.DONE;
        engine.countedThread = COMPLETION_THREAD;
        for (int i = 0; i < 3; i++) {
            writeAsync(i).join();
        }
        Thread.sleep(20);
    }

    private static int record(List<Thread> ranOn, int n) {
        ranOn.add(Thread.currentThread());
        return n;
    }

    /**
     * Up to five transports, one after the other: each learns that its futures are joined, then
     * gets a second of paced, joined futures under a JFR recording of the completion thread's
     * parks. A second in which the completion thread took a future over (it drove the engine: a
     * joining thread was descheduled between its submit and its join for longer than the watch
     * waits, as on a loaded machine) keeps the watch close for its calm spell and says nothing;
     * the first second without one must show a few looks.
     */
    @ParameterizedTest(name = "engine signals: {0}")
    @ValueSource(booleans = {true, false})
    void aStreamOfJoinedFuturesCostsTheCompletionThreadAFewLooksASecond(boolean signals, @TempDir Path dir)
            throws Exception {
        List<String> tookOver = new ArrayList<>();
        for (int attempt = 1; attempt <= 5; attempt++) {
            openWithJoinedFutures(signals);
            int drivesBefore = engine.countedProgress.get();
            Path file = dir.resolve("parks-" + attempt + ".jfr");
            int joined = 0;
            try (Recording recording = new Recording()) {
                recording.enable("jdk.ThreadPark").withThreshold(Duration.ZERO).withoutStackTrace();
                recording.start();
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
                while (System.nanoTime() - end < 0) {
                    writeAsync(joined % 16).join();
                    joined++;
                    LockSupport.parkNanos(100_000); // paced, as a request handler's
                }
                recording.stop();
                recording.dump(file);
            }
            int drives = engine.countedProgress.get() - drivesBefore;
            long parks = RecordingFile.readAllEvents(file).stream().filter(e -> e.getThread() != null
                    && e.getThread().getJavaName() != null && e.getThread().getJavaName().contains(COMPLETION_THREAD))
                    .count();
            if (drives == 0) {
                assertTrue(parks < 60, "a stream of joined futures (" + joined + " in a second) must cost the"
                        + " completion thread a few looks, not one every few milliseconds: it parked " + parks
                        + " times" + (tookOver.isEmpty() ? "" : " (earlier seconds: " + tookOver + ")"));
                return;
            }
            tookOver.add(parks + " parks, " + drives + " drives");
            close();
            transport = null;
        }
        Assumptions.abort("in each of 5 seconds of joined futures the completion thread took a future over (a"
                + " joining thread descheduled between its submit and its join: a loaded machine), which keeps its"
                + " watch close; nothing to judge: " + tookOver);
    }

    /**
     * A future is its submitting thread's until the submit returns it: however long the backend
     * takes to start the transfer (a native post, a descheduled thread), the completion thread's
     * watch, which looks a few times a second, must not take that future over as one nobody
     * blocks on, which would cost its attending and a close watch for its calm spell.
     */
    @ParameterizedTest(name = "engine signals: {0}")
    @ValueSource(booleans = {true, false})
    void aFutureWhoseSubmitIsStillInTheBackendIsNotTakenOver(boolean signals) throws Exception {
        openWithJoinedFutures(signals);
        int drivesBefore = engine.countedProgress.get();
        // each submit lasts longer than the watch's longest period, so the watch looks during each
        engine.submitNanos = TimeUnit.MILLISECONDS.toNanos(150);
        for (int i = 0; i < 4; i++) {
            writeAsync(i).join();
        }
        assertEquals(0, engine.countedProgress.get() - drivesBefore, "the completion thread drove the engine:"
                + " it took over a future whose submit had not yet returned to the thread that joins it");
    }

    @ParameterizedTest(name = "engine signals: {0}")
    @ValueSource(booleans = {true, false})
    void aFutureNobodyBlocksOnCompletesWhileTheOthersAreJoined(boolean signals) throws Exception {
        open(signals);
        for (int i = 0; i < 3; i++) { // the transport learns that its futures are joined
            TransferFuture f = writeAsync(i);
            engine.complete(engine.last(), ScriptedEngine.DONE);
            f.join();
        }
        TransferFuture alone = writeAsync(5);
        long ended = System.nanoTime();
        engine.complete(engine.last(), ScriptedEngine.DONE);
        CompletableFuture.allOf(alone).get(WAKE_BOUND_MILLIS, TimeUnit.MILLISECONDS);
        assertWithinWakeBound(ended, "a future neither joined nor given a dependent");
    }
}
