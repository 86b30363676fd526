package io.blockxfer.loopback;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerRegistrationException;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The fault injection users get for their own tests, used as they would use it. */
class LoopbackFaultsTest {

    private final TransportConfig config = TransportConfig.builder(RegionSpec.allocate(8, 256))
            .transport("loopback").transferTimeout(Duration.ofMillis(400)).build();
    private final DataTransport initiator = Transports.open(config);
    private final DataTransport target = Transports.open(config);

    @AfterEach
    void close() {
        initiator.close();
        target.close();
    }

    private static LoopbackFaults faults(DataTransport t) {
        return t.feature(LoopbackFaults.class).orElseThrow();
    }

    private PollResult awaitReport(String peer) {
        long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (System.nanoTime() < end) {
            PollResult r = initiator.poll(peer);
            if (!r.isEmpty()) {
                return r;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no report within 5 s");
    }

    @Test
    void failedSubmitsBecomeFailedReportsNotExceptions() {
        initiator.addPeer("t", target.localDescriptor());
        faults(initiator).failNextSubmits(2);
        long a = initiator.writeBlocks("t", new int[] {0}, new int[] {0});
        long b = initiator.writeBlocks("t", new int[] {0}, new int[] {0});
        long c = initiator.writeBlocks("t", new int[] {0}, new int[] {0});
        java.util.Set<Long> done = new java.util.HashSet<>();
        java.util.Set<Long> failed = new java.util.HashSet<>();
        long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (done.size() + failed.size() < 3 && System.nanoTime() < end) {
            initiator.poll("t", (id, ok) -> (ok ? done : failed).add(id));
        }
        assertEquals(java.util.Set.of(a, b), failed, "the injected failures are reported failed");
        assertEquals(java.util.Set.of(c), done, "the next submit works again");
    }

    @Test
    void delayedCompletionsStayInFlightUntilTheDelayPasses() {
        initiator.addPeer("t", target.localDescriptor());
        faults(initiator).delayCompletions(Duration.ofMillis(150));
        long start = System.nanoTime();
        long id = initiator.writeBlocks("t", new int[] {1}, new int[] {2});
        assertArrayEquals(new long[] {id}, awaitReport("t").done());
        assertTrue(System.nanoTime() - start >= 150_000_000L, "completed before the delay");
    }

    @Test
    void aKilledTargetFailsTransfersAndCannotBeRegistered() {
        initiator.addPeer("t", target.localDescriptor());
        faults(target).stall(true);
        long id = initiator.writeBlocks("t", new int[] {1}, new int[] {2});
        faults(target).kill();
        assertArrayEquals(new long[] {id}, awaitReport("t").failed());
        assertTrue(faults(target).isKilled());
        assertThrows(PeerRegistrationException.class, () -> initiator.addPeer("t2", target.localDescriptor()));
    }

    @Test
    void aStalledTargetHoldsBytesBackUntilThawed() {
        MemorySegment source = initiator.region().block(3);
        source.fill((byte) 7);
        initiator.addPeer("t", target.localDescriptor());
        faults(target).stall(true);
        long id = initiator.writeBlocks("t", new int[] {3}, new int[] {4});
        assertEquals(PollResult.EMPTY, initiator.poll("t"));
        assertEquals(0, target.region().block(4).get(ValueLayout.JAVA_BYTE, 0));
        faults(target).stall(false);
        assertArrayEquals(new long[] {id}, awaitReport("t").done());
        assertEquals(-1, target.region().block(4).mismatch(source));
    }

    @Test
    void callerMemoryIsUsedInPlace() {
        try (Arena confined = Arena.ofConfined()) {
            var e = assertThrows(IllegalArgumentException.class, () -> RegionSpec.wrap(confined.allocate(256), 256));
            assertTrue(e.getMessage().contains("every thread"), e.getMessage());
        }
        try (Arena arena = Arena.ofShared()) {
            MemorySegment mine = arena.allocate(8 * 256);
            try (DataTransport t = Transports.open(TransportConfig.builder(RegionSpec.wrap(mine, 256))
                    .transport("loopback").build())) {
                assertEquals(mine.address(), t.region().baseAddress());
                initiator.region().block(0).fill((byte) 9);
                initiator.addPeer("mine", t.localDescriptor());
                long id = initiator.writeBlocks("mine", new int[] {0}, new int[] {5});
                assertArrayEquals(new long[] {id}, awaitReport("mine").done());
                assertEquals(9, mine.get(ValueLayout.JAVA_BYTE, 5 * 256));
            }
        }
    }
}
