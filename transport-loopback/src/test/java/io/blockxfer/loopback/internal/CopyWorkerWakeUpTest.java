package io.blockxfer.loopback.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.ProgressMode;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.ManagedTransport;
import io.blockxfer.transport.spi.TransferEngine;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The worker wakes for every submit: lone transfers after idle gaps, each of which finds the
 * worker going to sleep or asleep, are each finished within a generous bound. The worker parks
 * without a timeout when idle, so a lost wake-up would leave a transfer in flight for good. The
 * fallback worker, whose looks stretch while the callers' polls take every job, still finishes a
 * job nobody polls for.
 */
class CopyWorkerWakeUpTest {

    private static final long BOUND_NANOS = TimeUnit.SECONDS.toNanos(10);

    private static TransportConfig config(ProgressMode mode) {
        return TransportConfig.builder(RegionSpec.allocate(4, 64)).transport("loopback").progressMode(mode)
                .transferTimeout(Duration.ofMinutes(1)).build();
    }

    /** Idle gaps from none to a few tens of microseconds: around the moment the worker parks. */
    private static void gap(Random random) {
        switch (random.nextInt(4)) {
            case 0 -> { }
            case 1 -> Thread.yield();
            case 2 -> LockSupport.parkNanos(random.nextInt(50_000));
            default -> {
                for (int i = random.nextInt(2_000); i > 0; i--) {
                    Thread.onSpinWait();
                }
            }
        }
    }

    @Test
    void everyLoneTransferIsReportedWhenTheWorkerDoesTheCopies() {
        TransportConfig config = config(ProgressMode.BACKEND_THREAD);
        // few spins, so that nearly every submit meets a worker that is parking or parked
        LoopbackEngine engine = new LoopbackEngine(config, 4, CopyWorker.DEFAULT_FALLBACK_NANOS);
        try (ManagedTransport initiator = new ManagedTransport(engine, config, EnumSet.noneOf(Capability.class));
                ManagedTransport target = new ManagedTransport(new LoopbackEngine(config), config,
                        EnumSet.noneOf(Capability.class))) {
            initiator.addPeer("t", target.localDescriptor());
            Random random = new Random(42);
            for (int i = 0; i < 20_000; i++) {
                gap(random);
                long id = initiator.writeBlocks("t", new int[] {i % 4}, new int[] {(i + 1) % 4});
                long deadline = System.nanoTime() + BOUND_NANOS;
                PollResult r = initiator.poll("t");
                while (r.isEmpty()) {
                    if (System.nanoTime() - deadline > 0) {
                        fail("transfer " + i + " (id " + id + ") not reported within 10 s: the worker missed its wake-up");
                    }
                    Thread.onSpinWait();
                    r = initiator.poll("t");
                }
                assertEquals(id, r.done()[0]);
            }
        }
    }

    @Test
    void theFallbackWorkerFinishesWhatNobodyPollsForAfterLongIdleGaps() {
        TransportConfig config = config(ProgressMode.POLLING_THREAD);
        LoopbackEngine engine = new LoopbackEngine(config);
        LoopbackEngine target = new LoopbackEngine(config);
        try {
            Object peer = engine.connect("t", PeerDescriptor.of("loopback", "", target.region(), target.agentMetadata()));
            Random random = new Random(7);
            for (int i = 0; i < 60; i++) {
                // longer than the fallback's armed time, so that it parks for good in between
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(12 + random.nextInt(4)));
                Object job = engine.submit(i, peer, TransferOp.WRITE, new int[] {0}, new int[] {1});
                long deadline = System.nanoTime() + BOUND_NANOS;
                while (engine.status(job) == TransferEngine.PENDING) { // no poll: only the worker moves it
                    if (System.nanoTime() - deadline > 0) {
                        fail("transfer " + i + " not finished by the fallback worker within 10 s");
                    }
                    Thread.onSpinWait();
                }
                assertEquals(TransferEngine.DONE, engine.status(job));
                engine.release(job);
            }
            assertEquals(0, engine.takenByCallers());
        } finally {
            engine.close(false);
            target.close(false);
        }
    }

    @Test
    void theFallbackWorkerStillFinishesWhatNobodyPollsForAfterTheCallersTookEveryJob() {
        TransportConfig config = config(ProgressMode.POLLING_THREAD);
        LoopbackEngine engine = new LoopbackEngine(config);
        LoopbackEngine target = new LoopbackEngine(config);
        try {
            Object peer = engine.connect("t", PeerDescriptor.of("loopback", "", target.region(), target.agentMetadata()));
            long taken = 0;
            for (int round = 0; round < 20; round++) {
                // the callers' polls take every job for a while: the worker looks less and less often
                long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(8);
                int i = 0;
                while (System.nanoTime() - until < 0) {
                    Object job = engine.submit(i, peer, TransferOp.WRITE, new int[] {0}, new int[] {1});
                    while (engine.status(job) == TransferEngine.PENDING) {
                        engine.progress();
                    }
                    engine.release(job);
                    i++;
                    LockSupport.parkNanos(50_000);
                }
                // then a job nobody polls for: only the worker, backed off, moves it
                Object job = engine.submit(i, peer, TransferOp.WRITE, new int[] {0}, new int[] {1});
                long deadline = System.nanoTime() + BOUND_NANOS;
                while (engine.status(job) == TransferEngine.PENDING) {
                    if (System.nanoTime() - deadline > 0) {
                        fail("round " + round + ": a job nobody polled for was not finished by the fallback worker"
                                + " within 10 s after the callers had taken every job");
                    }
                    Thread.onSpinWait();
                }
                assertEquals(TransferEngine.DONE, engine.status(job));
                engine.release(job);
                assertTrue(engine.takenByCallers() > taken, "the callers' polls took the jobs before it");
                taken = engine.takenByCallers();
            }
        } finally {
            engine.close(false);
            target.close(false);
        }
    }
}
