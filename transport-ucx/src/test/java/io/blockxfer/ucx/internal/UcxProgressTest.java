package io.blockxfer.ucx.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.ProgressMode;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.TransferEngine;
import io.blockxfer.ucx.UcxOptions;
import io.blockxfer.ucx.UcxProvider;
import io.blockxfer.ucx.UcxTestSupport;
import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Who advances transfers, on the engine itself (no {@code ManagedTransport}, whose polls would
 * drive): the progress thread wakes for every lone submit after an idle gap, in both modes; polls
 * drive the worker in {@link ProgressMode#POLLING_THREAD} and never in
 * {@link ProgressMode#BACKEND_THREAD}; the progress thread takes over when polls stop, and sleeps
 * while a poll holds the worker for a long copy.
 *
 * <p>{@code -Dblockxfer.ucx.loneTransfers=N} sets how many lone transfers the wake-up rule sends
 * (default 1,000; the long form is a million).
 */
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class UcxProgressTest {

    /** Far above any scheduling delay of a loaded host, far below what a lost wake-up costs. */
    private static final long BOUND_NANOS = TimeUnit.SECONDS.toNanos(2);

    @BeforeEach
    void ucx() {
        UcxTestSupport.requireUcx();
    }

    private static TransportConfig config(ProgressMode mode) {
        // a long keepalive: no timer wakes a sleeping progress thread, only the submit can
        return TransportConfig.builder(RegionSpec.allocate(8, 4096)).progressMode(mode)
                .option(UcxOptions.KEEPALIVE, "60s").build();
    }

    private static int await(UcxEngine engine, Object transfer, boolean drive) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int s;
        while ((s = engine.status(transfer)) == TransferEngine.PENDING && System.nanoTime() < deadline) {
            if (drive) {
                engine.progress();
            } else {
                Thread.onSpinWait();
            }
        }
        return s;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = ProgressMode.class, names = {"POLLING_THREAD", "BACKEND_THREAD"})
    void everyLoneTransferAfterAnIdleGapIsPickedUpPromptly(ProgressMode mode) {
        int count = Integer.getInteger("blockxfer.ucx.loneTransfers", 1_000);
        try (DataTransport target = new UcxProvider().open(config(mode))) {
            UcxEngine engine = new UcxEngine(config(mode));
            try {
                Object peer = engine.connect("t", target.localDescriptor());
                ProgressLoop loop = engine.loop();
                Random random = new Random(42);
                long worst = 0;
                long waitsBefore = loop.waits();
                int sleepingSubmits = 0;
                for (int i = 0; i < count; i++) {
                    if (i % 2 == 0) {
                        // submit into a loop that is asleep on the worker's event descriptor for sure
                        long until = System.nanoTime() + BOUND_NANOS;
                        while (loop.gateState() != WakeupGate.WAITING && System.nanoTime() < until) {
                            LockSupport.parkNanos(20_000);
                        }
                        if (loop.gateState() == WakeupGate.WAITING) {
                            sleepingSubmits++;
                        }
                    } else {
                        // submit while the loop is about to fall asleep: its idle spin lasts 200 us
                        LockSupport.parkNanos(100_000 + random.nextInt(200_000));
                    }
                    long start = System.nanoTime();
                    Object t = engine.submit(i, peer, TransferOp.WRITE, new int[] {i % 8}, new int[] {(i + 3) % 8});
                    int status = await(engine, t, false);
                    long took = System.nanoTime() - start;
                    assertEquals(TransferEngine.DONE, status, "transfer " + i + " did not complete");
                    engine.release(t);
                    worst = Math.max(worst, took);
                    assertTrue(took < BOUND_NANOS, "lone transfer " + i + " took " + took / 1_000_000
                            + " ms: the progress thread missed its wake-up");
                }
                assertTrue(sleepingSubmits > count / 4, "the loop was asleep for only " + sleepingSubmits
                        + " of " + count + " submits: the test did not exercise the wake-up");
                assertTrue(loop.waits() - waitsBefore >= sleepingSubmits, "the loop slept less often than submits"
                        + " found it asleep");
                System.out.printf("lone transfers (%s): %d, %d into a sleeping loop, worst %.2f ms%n", mode, count,
                        sleepingSubmits, worst / 1e6);
            } finally {
                engine.close(false);
            }
        }
    }

    @Test
    void pollsDriveTheWorkerOnlyInPollingMode() {
        for (ProgressMode mode : new ProgressMode[] {ProgressMode.POLLING_THREAD, ProgressMode.BACKEND_THREAD}) {
            try (DataTransport target = new UcxProvider().open(config(mode))) {
                UcxEngine engine = new UcxEngine(config(mode));
                try {
                    Object peer = engine.connect("t", target.localDescriptor());
                    int driven = 0;
                    for (int i = 0; i < 200; i++) {
                        Object t = engine.submit(i, peer, TransferOp.WRITE, new int[] {1}, new int[] {2});
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                        while (engine.status(t) == TransferEngine.PENDING && System.nanoTime() < deadline) {
                            driven += engine.progress();
                        }
                        assertEquals(TransferEngine.DONE, engine.status(t));
                        engine.release(t);
                    }
                    if (mode == ProgressMode.POLLING_THREAD) {
                        assertTrue(driven > 0 && engine.loop().pollerRounds() > 0,
                                "a spinning poller never drove the worker");
                    } else {
                        assertEquals(0, driven, "polls drove the worker in " + mode);
                        assertEquals(0, engine.loop().pollerRounds());
                    }
                } finally {
                    engine.close(false);
                }
            }
        }
    }

    @Test
    void theProgressThreadTakesOverWhenPollsStop() {
        try (DataTransport target = new UcxProvider().open(config(ProgressMode.POLLING_THREAD))) {
            UcxEngine engine = new UcxEngine(config(ProgressMode.POLLING_THREAD));
            try {
                Object peer = engine.connect("t", target.localDescriptor());
                for (int round = 0; round < 50; round++) {
                    // polls keep coming: the progress thread leaves the worker to them ...
                    long until = System.nanoTime() + 2_000_000;
                    while (System.nanoTime() < until) {
                        engine.progress();
                    }
                    // ... then they stop, with a transfer submitted that nobody polls for
                    long start = System.nanoTime();
                    Object t = engine.submit(round, peer, TransferOp.WRITE, new int[] {3}, new int[] {4});
                    assertEquals(TransferEngine.DONE, await(engine, t, false), "round " + round);
                    long took = System.nanoTime() - start;
                    engine.release(t);
                    assertTrue(took < BOUND_NANOS, "round " + round + ": the progress thread took " + took / 1_000_000
                            + " ms to take over");
                }
            } finally {
                engine.close(false);
            }
        }
    }

    /**
     * A caller that backs off or polls rarely sleeps between its polls. A transfer that takes UCX
     * more than one step (here a WRITE to a caller-memory target: UCX emulates the put with
     * messages, and its flush waits for the target's acknowledgement) must advance during that
     * sleep, as it does with {@link ProgressMode#BACKEND_THREAD}, not wait for the caller's next
     * poll to take each step. The engine counts polls as active for 10 s here, far longer than the
     * caller sleeps: the progress thread must still step in, because work is outstanding.
     */
    @Test
    void aTransferAdvancesWhileItsPollingCallerSleeps() {
        Arena arena = Arena.ofShared();
        TransportConfig targetConfig = TransportConfig.builder(RegionSpec.wrap(arena.allocate(8 * 4096, 4096), 4096))
                .progressMode(ProgressMode.BACKEND_THREAD).option(UcxOptions.KEEPALIVE, "60s").build();
        try (DataTransport target = new UcxProvider().open(targetConfig)) {
            UcxEngine engine = new UcxEngine(config(ProgressMode.POLLING_THREAD), TimeUnit.SECONDS.toNanos(10));
            try {
                Object peer = engine.connect("t", target.localDescriptor());
                int manySteps = 0;
                for (int i = 0; i < 40 && manySteps < 8; i++) {
                    Object t = engine.submit(i, peer, TransferOp.WRITE, new int[] {i % 8}, new int[] {(i + 5) % 8});
                    engine.progress(); // the caller's poll
                    if (engine.status(t) == TransferEngine.PENDING) {
                        manySteps++;
                        // the caller sleeps; nobody polls
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
                        assertEquals(TransferEngine.DONE, engine.status(t), "transfer " + i + " did not advance in"
                                + " the 500 ms its caller slept between polls: the progress thread stood aside");
                    } else {
                        assertEquals(TransferEngine.DONE, await(engine, t, true), "transfer " + i);
                    }
                    engine.release(t);
                }
                assertTrue(manySteps >= 4, "only " + manySteps + " transfers outlived the poll that issued them: the"
                        + " test did not exercise a many-step transfer");
            } finally {
                engine.close(false);
            }
        }
    }

    /**
     * A peer whose UCX-allocated region is mapped in this process is written and read by a copy
     * into or out of that mapping, with no UCX request; a caller-memory peer, which UCX cannot map,
     * goes through UCX's puts and gets.
     */
    @Test
    void transfersWithAMappedPeerAreCopiesAndOthersGoThroughUcx() {
        Arena arena = Arena.ofShared();
        TransportConfig callerMemory = TransportConfig.builder(RegionSpec.wrap(arena.allocate(8 * 4096, 4096), 4096))
                .option(UcxOptions.KEEPALIVE, "60s").build();
        try (DataTransport mappable = new UcxProvider().open(config(ProgressMode.BACKEND_THREAD));
                DataTransport unmappable = new UcxProvider().open(callerMemory)) {
            UcxEngine engine = new UcxEngine(config(ProgressMode.POLLING_THREAD));
            try {
                Object mapped = engine.connect("mapped", mappable.localDescriptor());
                Object viaUcx = engine.connect("via-ucx", unmappable.localDescriptor());
                long id = 0;
                for (TransferOp op : TransferOp.values()) {
                    for (Object peer : new Object[] {mapped, viaUcx}) {
                        Object t = engine.submit(id++, peer, op, new int[] {1}, new int[] {2});
                        assertEquals(TransferEngine.DONE, await(engine, t, true), op + " with " + peer);
                        engine.release(t);
                    }
                }
                assertEquals(1, engine.loop().mappedWrites(), "WRITEs copied into a mapped region");
                assertEquals(1, engine.loop().mappedReads(), "READs copied out of a mapped region");
            } finally {
                engine.close(false);
            }
        }
    }

    /**
     * A poll that copies a batch of large blocks into a mapped peer holds the worker for a
     * millisecond or more. Meanwhile the progress thread must sleep, not spin for the worker
     * against the very thread that moves the bytes: on a busy host that spinning took the copy's
     * core share (64 x 256 KiB WRITEs kept a third of their quiet speed under a CPU hog).
     */
    @Test
    void theProgressThreadSleepsWhileAPollCopiesForIt() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadCpuTimeSupported() && threads.isCurrentThreadCpuTimeSupported(),
                "this JVM does not measure thread CPU time");
        int blocks = 64;
        TransportConfig large = TransportConfig.builder(RegionSpec.allocate(blocks, 256 * 1024))
                .progressMode(ProgressMode.POLLING_THREAD).option(UcxOptions.KEEPALIVE, "60s").build();
        int[] all = new int[blocks];
        Arrays.setAll(all, i -> i);
        try (DataTransport target = new UcxProvider().open(large)) {
            UcxEngine engine = new UcxEngine(large);
            try {
                Object peer = engine.connect("t", target.localDescriptor());
                ProgressLoop loop = engine.loop();
                for (int i = 0; i < 20; i++) { // warm-up
                    Object t = engine.submit(i, peer, TransferOp.WRITE, all, all);
                    assertEquals(TransferEngine.DONE, await(engine, t, true));
                    engine.release(t);
                }
                long writesBefore = loop.mappedWrites();
                long loopBefore = threads.getThreadCpuTime(loop.threadId());
                long callerBefore = threads.getCurrentThreadCpuTime();
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
                int count = 0;
                while (System.nanoTime() < end || count < 100) {
                    Object t = engine.submit(1000 + count, peer, TransferOp.WRITE, all, all);
                    assertEquals(TransferEngine.DONE, await(engine, t, true), "transfer " + count);
                    engine.release(t);
                    count++;
                }
                long loopCpu = threads.getThreadCpuTime(loop.threadId()) - loopBefore;
                long callerCpu = threads.getCurrentThreadCpuTime() - callerBefore;
                assertEquals(count, loop.mappedWrites() - writesBefore, "every WRITE was a copy into the mapping");
                assertTrue(loopCpu < callerCpu / 5, "the progress thread used " + loopCpu / 1_000_000 + " ms of CPU"
                        + " while the polling thread copied for " + callerCpu / 1_000_000 + " ms (" + count
                        + " transfers of 64 x 256 KiB): it spun for the worker instead of sleeping");
                System.out.printf("progress thread while polls copy: %.1f ms CPU against the caller's %.1f ms%n",
                        loopCpu / 1e6, callerCpu / 1e6);
            } finally {
                engine.close(false);
            }
        }
    }

    @Test
    void autoMeansPollingThread() {
        assertEquals(ProgressMode.POLLING_THREAD, UcxEngine.resolve(ProgressMode.AUTO));
        assertEquals(ProgressMode.BACKEND_THREAD, UcxEngine.resolve(ProgressMode.BACKEND_THREAD));
    }
}
