package io.blockxfer.loopback.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.loopback.LoopbackFaults;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.ProgressMode;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.ManagedTransport;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Who copies: in the polling modes the caller's poll does (checked with a worker whose fallback
 * never comes, so nothing completes unless the polls copy), in the backend mode only the worker;
 * fault injection behaves the same either way.
 */
class LoopbackProgressModesTest {

    /** A fallback interval no test outlives: the worker then never takes work on its own. */
    private static final long NEVER = TimeUnit.HOURS.toNanos(1);

    private ManagedTransport initiator;
    private ManagedTransport target;
    private LoopbackEngine initiatorEngine;

    /** Opens the pair; in the polling modes the initiator's worker leaves every copy to polls. */
    private void open(ProgressMode mode) {
        TransportConfig config = TransportConfig.builder(RegionSpec.allocate(8, 256)).transport("loopback")
                .progressMode(mode).transferTimeout(Duration.ofSeconds(30)).build();
        initiatorEngine = new LoopbackEngine(config, CopyWorker.DEFAULT_SPINS,
                mode == ProgressMode.BACKEND_THREAD ? CopyWorker.DEFAULT_FALLBACK_NANOS : NEVER);
        Set<Capability> caps = EnumSet.of(Capability.READ, Capability.FAULT_INJECTION);
        initiator = new ManagedTransport(initiatorEngine, config, caps);
        target = new ManagedTransport(new LoopbackEngine(config), config, caps);
        initiator.addPeer("t", target.localDescriptor());
    }

    @AfterEach
    void close() {
        if (initiator != null) {
            initiator.close();
            target.close();
        }
    }

    private PollResult awaitReport() {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < end) {
            PollResult r = initiator.poll("t");
            if (!r.isEmpty()) {
                return r;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no report within 20 s");
    }

    private static LoopbackFaults faults(DataTransport t) {
        return t.feature(LoopbackFaults.class).orElseThrow();
    }

    @ParameterizedTest
    @EnumSource(value = ProgressMode.class, names = {"AUTO", "POLLING_THREAD"})
    void thePollingThreadDoesTheCopies(ProgressMode mode) {
        open(mode);
        for (int i = 0; i < 200; i++) {
            initiator.region().block(i % 8).fill((byte) i);
            long id = initiator.writeBlocks("t", new int[] {i % 8}, new int[] {(i + 3) % 8});
            assertArrayEquals(new long[] {id}, awaitReport().done(), "transfer " + i);
            assertEquals((byte) i, target.region().block((i + 3) % 8).get(ValueLayout.JAVA_BYTE, 255));
        }
        assertTrue(initiatorEngine.takenByCallers() > 0, "polls took no copy");
    }

    @Test
    void inBackendThreadModePollsOnlyReadStates() {
        open(ProgressMode.BACKEND_THREAD);
        for (int i = 0; i < 50; i++) {
            long id = initiator.writeBlocks("t", new int[] {1}, new int[] {2});
            assertArrayEquals(new long[] {id}, awaitReport().done());
        }
        assertEquals(0, initiatorEngine.progress());
        assertEquals(0, initiatorEngine.takenByCallers(), "a poll copied in BACKEND_THREAD mode");
    }

    @ParameterizedTest
    @EnumSource(value = ProgressMode.class, names = {"POLLING_THREAD", "BACKEND_THREAD"})
    void injectedSubmitFailuresAreReportedFailed(ProgressMode mode) {
        open(mode);
        faults(initiator).failNextSubmits(2);
        long a = initiator.writeBlocks("t", new int[] {0}, new int[] {0});
        long b = initiator.writeBlocks("t", new int[] {0}, new int[] {0});
        long c = initiator.writeBlocks("t", new int[] {0}, new int[] {0});
        Set<Long> done = new HashSet<>();
        Set<Long> failed = new HashSet<>();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (done.size() + failed.size() < 3 && System.nanoTime() < end) {
            initiator.poll("t", (id, ok) -> (ok ? done : failed).add(id));
        }
        assertEquals(Set.of(a, b), failed);
        assertEquals(Set.of(c), done);
    }

    @ParameterizedTest
    @EnumSource(value = ProgressMode.class, names = {"POLLING_THREAD", "BACKEND_THREAD"})
    void delayedCompletionsStayInFlightUntilTheDelayPasses(ProgressMode mode) {
        open(mode);
        faults(initiator).delayCompletions(Duration.ofMillis(150));
        initiator.region().block(1).fill((byte) 4);
        long start = System.nanoTime();
        long id = initiator.writeBlocks("t", new int[] {1}, new int[] {2});
        assertArrayEquals(new long[] {id}, awaitReport().done());
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(150), "completed before the delay");
        assertEquals(4, target.region().block(2).get(ValueLayout.JAVA_BYTE, 0), "the bytes moved");
    }

    @ParameterizedTest
    @EnumSource(value = ProgressMode.class, names = {"POLLING_THREAD", "BACKEND_THREAD"})
    void aStalledTargetHoldsBytesBackUntilThawed(ProgressMode mode) {
        open(mode);
        initiator.region().block(3).fill((byte) 7);
        faults(target).stall(true);
        long id = initiator.writeBlocks("t", new int[] {3}, new int[] {4});
        for (int i = 0; i < 100; i++) {
            assertSame(PollResult.EMPTY, initiator.poll("t"));
        }
        assertEquals(0, target.region().block(4).get(ValueLayout.JAVA_BYTE, 0), "bytes landed on a stalled target");
        faults(target).stall(false);
        assertArrayEquals(new long[] {id}, awaitReport().done());
        assertEquals(-1, target.region().block(4).mismatch(initiator.region().block(3)));
    }

    @ParameterizedTest
    @EnumSource(value = ProgressMode.class, names = {"POLLING_THREAD", "BACKEND_THREAD"})
    void aKilledTargetFailsTransfersInFlight(ProgressMode mode) {
        open(mode);
        faults(target).stall(true);
        long id = initiator.writeBlocks("t", new int[] {1}, new int[] {2});
        assertSame(PollResult.EMPTY, initiator.poll("t"));
        faults(target).kill();
        assertArrayEquals(new long[] {id}, awaitReport().failed());
    }
}
