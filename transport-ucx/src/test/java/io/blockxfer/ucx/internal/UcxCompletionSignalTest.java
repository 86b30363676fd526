package io.blockxfer.ucx.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.ProgressMode;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.CompletionSignal;
import io.blockxfer.transport.spi.TransferEngine;
import io.blockxfer.ucx.UcxOptions;
import io.blockxfer.ucx.UcxProvider;
import io.blockxfer.ucx.UcxTestSupport;
import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The UCX engine fires the transport's completion signal itself: a caller parked in a wait is
 * woken by the engine's progress loop, with no status thread polling for it, in both progress
 * modes; and the loop's thread sleeps on the worker's event descriptor between transfers.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class UcxCompletionSignalTest {

    /**
     * Far above any scheduling delay of a loaded host, far below a waiter's own re-poll (a quarter
     * of the transfer timeout, 30 s here), which is all a wait would have without the signal.
     */
    private static final long BOUND_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final int BLOCKS = 16;
    private static final int BLOCK_BYTES = 1 << 20;

    @BeforeEach
    void ucx() {
        UcxTestSupport.requireUcx();
    }

    /**
     * 16 x 1 MiB WRITEs into caller memory (which UCX cannot map here, so they go through UCX's
     * puts and flush, milliseconds each), each submitted once the waiting caller has parked on the
     * peer with nothing in flight, so that only the completion signal can wake it within the bound.
     * No completion thread exists for the transport.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = ProgressMode.class, names = {"POLLING_THREAD", "BACKEND_THREAD"})
    void aParkedWaiterIsWokenByTheEngineWithNoStatusThread(ProgressMode mode) throws Exception {
        Arena arena = Arena.ofShared();
        String agent = "signal-" + mode.name().toLowerCase(Locale.ROOT);
        TransportConfig targetConfig = TransportConfig.builder(
                        RegionSpec.wrap(arena.allocate((long) BLOCKS * BLOCK_BYTES, 4096), BLOCK_BYTES))
                .agentName(agent + "-target").progressMode(ProgressMode.BACKEND_THREAD)
                .option(UcxOptions.KEEPALIVE, "60s").build();
        TransportConfig initiatorConfig = TransportConfig.builder(RegionSpec.allocate(BLOCKS, BLOCK_BYTES))
                .agentName(agent).progressMode(mode).transferTimeout(Duration.ofMinutes(2))
                .option(UcxOptions.KEEPALIVE, "60s").build();
        int[] all = new int[BLOCKS];
        Arrays.setAll(all, i -> i);
        try (DataTransport target = new UcxProvider().open(targetConfig);
                DataTransport initiator = new UcxProvider().open(initiatorConfig)) {
            initiator.addPeer("t", target.localDescriptor());
            int transfers = 20;
            int sawParked = 0;
            long worst = 0;
            for (int i = 0; i < transfers; i++) {
                AtomicReference<PollResult> result = new AtomicReference<>();
                AtomicLong tookNanos = new AtomicLong();
                AtomicLong submittedAt = new AtomicLong();
                Thread waiter = Thread.ofPlatform().start(() -> {
                    try {
                        result.set(initiator.poll("t", 60, TimeUnit.SECONDS));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    tookNanos.set(System.nanoTime() - submittedAt.get());
                });
                // the waiter parks on a peer with nothing in flight; the transfer is submitted after
                // that, so only the engine's signal can wake it in time
                long parkDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                boolean parked = false;
                while (!parked && System.nanoTime() - parkDeadline < 0) {
                    parked = waiter.getState() == Thread.State.TIMED_WAITING;
                    if (!parked) {
                        LockSupport.parkNanos(50_000);
                    }
                }
                submittedAt.set(System.nanoTime());
                long id = initiator.writeBlocks("t", all, all);
                waiter.join();
                if (parked) {
                    sawParked++;
                }
                PollResult r = result.get();
                assertTrue(r != null && r.doneCount() == 1 && r.doneId(0) == id, "transfer " + i + " was not"
                        + " reported done by the wait: " + r);
                worst = Math.max(worst, tookNanos.get());
                assertTrue(tookNanos.get() < BOUND_NANOS, "transfer " + i + ": the wait returned after "
                        + tookNanos.get() / 1_000_000 + " ms: nothing woke the parked caller");
                assertTrue(Thread.getAllStackTraces().keySet().stream()
                                .noneMatch(t -> t.getName().equals("blockxfer-ucx-completions-" + agent)),
                        "a completion thread runs for the UCX transport: the engine does not fire the signal");
            }
            assertEquals(transfers, sawParked, "the waiter was seen parked before the submit in only " + sawParked
                    + " of " + transfers + " waits: the test did not exercise a parked waiter");
            System.out.printf("parked waiters woken by the UCX engine (%s): %d of %d seen parked, worst %.2f ms%n",
                    mode, sawParked, transfers, worst / 1e6);
        }
    }

    /**
     * The engine answers the SPI: it fires the signal (so the transport starts no status thread),
     * and fires it when a transfer ends; between transfers its loop's thread sleeps on the worker's
     * event descriptor.
     */
    @Test
    void theEngineSignalsEveryEndAndSleepsOnTheDescriptor() {
        TransportConfig config = TransportConfig.builder(RegionSpec.allocate(8, 4096))
                .progressMode(ProgressMode.BACKEND_THREAD).option(UcxOptions.KEEPALIVE, "60s").build();
        try (DataTransport target = new UcxProvider().open(config)) {
            UcxEngine engine = new UcxEngine(config);
            try {
                AtomicInteger signals = new AtomicInteger();
                CompletionSignal signal = signals::incrementAndGet;
                assertTrue(engine.bindCompletionSignal(signal), "the UCX engine must fire the completion signal");
                Object peer = engine.connect("t", target.localDescriptor());
                long waitsBefore = engine.loop().waits();
                for (int i = 0; i < 50; i++) {
                    int before = signals.get();
                    Object t = engine.submit(i, peer, TransferOp.WRITE, new int[] {i % 8},
                            new int[] {(i + 1) % 8});
                    long deadline = System.nanoTime() + BOUND_NANOS;
                    while (engine.status(t) == TransferEngine.PENDING
                            && System.nanoTime() < deadline) {
                        Thread.onSpinWait();
                    }
                    assertEquals(TransferEngine.DONE, engine.status(t), "transfer " + i);
                    long signalled = System.nanoTime() + BOUND_NANOS;
                    while (signals.get() == before && System.nanoTime() < signalled) {
                        Thread.onSpinWait();
                    }
                    assertTrue(signals.get() > before, "transfer " + i + " ended without a signal");
                    engine.release(t);
                    LockSupport.parkNanos(1_000_000); // the loop falls asleep
                }
                assertTrue(engine.loop().waits() > waitsBefore, "the loop's thread never slept on the worker's"
                        + " event descriptor");
            } finally {
                engine.close(false);
            }
        }
    }
}
