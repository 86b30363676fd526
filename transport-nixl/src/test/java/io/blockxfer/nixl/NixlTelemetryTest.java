package io.blockxfer.nixl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.TransferOp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** NIXL's per-transfer telemetry through {@code feature(NixlTelemetry.class)}. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NixlTelemetryTest {

    private static final long BLOCK = 16 * 1024;
    private final List<DataTransport> open = new ArrayList<>();

    @BeforeEach
    void check() {
        NixlTests.assumeNixl();
    }

    @AfterEach
    void close() {
        open.reversed().forEach(DataTransport::close);
    }

    private DataTransport open(String name, Map<String, String> options) {
        DataTransport t = NixlTests.open(NixlTests.config(name, 32, BLOCK).options(options).build());
        open.add(t);
        return t;
    }

    private void run(DataTransport a, long... ids) {
        Set<Long> set = new java.util.HashSet<>();
        for (long id : ids) {
            set.add(id);
        }
        Map<Long, Boolean> outcomes = NixlTests.await(a, "b", set, Duration.ofSeconds(20));
        assertTrue(outcomes.values().stream().allMatch(ok -> ok), "all done: " + outcomes);
    }

    @Test
    void recordsDurationsBytesAndDescriptorCountsPerTransfer() {
        DataTransport a = open("telemetry-a", Map.of());
        DataTransport b = open("telemetry-b", Map.of());
        a.addPeer("b", b.localDescriptor());
        NixlTelemetry telemetry = a.feature(NixlTelemetry.class).orElseThrow();
        assertTrue(telemetry.capturing());
        assertEquals(NixlOptions.DEFAULT_TELEMETRY_HISTORY, telemetry.capacity());
        run(a, a.writeBlocks("b", new int[] {1}, new int[] {2}));
        run(a, a.writeBlocks("b", new int[] {0, 1, 2, 3, 4, 5, 6, 7}, new int[] {8, 9, 10, 11, 12, 13, 14, 15}));
        run(a, a.writeBlocks("b", new int[] {0, 2, 4, 6}, new int[] {20, 22, 24, 26}));
        run(a, a.readBlocks("b", new int[] {30, 31}, new int[] {3, 9}));
        List<NixlTransferTelemetry> recent = telemetry.recent(10);
        assertEquals(4, recent.size(), recent.toString());
        NixlTransferTelemetry read = recent.get(0);
        NixlTransferTelemetry scattered = recent.get(1);
        NixlTransferTelemetry run = recent.get(2);
        NixlTransferTelemetry single = recent.get(3);
        assertEquals(TransferOp.READ, read.op());
        assertEquals(2 * BLOCK, read.bytes());
        assertEquals(2, read.blocks());
        assertEquals(TransferOp.WRITE, scattered.op());
        assertEquals(4 * BLOCK, scattered.bytes());
        assertEquals(4, scattered.descriptors(), "scattered blocks are not merged");
        assertEquals(8 * BLOCK, run.bytes());
        assertEquals(1, run.descriptors(), "NIXL merges a contiguous run into one descriptor");
        assertEquals(BLOCK, single.bytes());
        for (NixlTransferTelemetry t : recent) {
            assertEquals("b", t.peerId());
            assertTrue(t.transferMicros() >= 0 && t.postMicros() >= 0 && t.startMicros() > 0, t.toString());
        }
        assertTrue(recent.get(0).sequence() > recent.get(3).sequence());
        assertEquals(read, telemetry.last().orElseThrow());
        NixlTelemetry.Totals totals = telemetry.totals();
        assertEquals(4, totals.transfers());
        assertEquals(15 * BLOCK, totals.bytes());
        assertEquals(1 + 1 + 4 + 2, totals.descriptors());
        assertTrue(totals.maxTransferMicros() >= 0 && totals.meanTransferMicros() >= 0);
        telemetry.reset();
        assertEquals(0, telemetry.totals().transfers());
        assertTrue(telemetry.recent(10).isEmpty());
        assertTrue(a.feature(Object.class).isEmpty());
    }

    @Test
    void recordsCarryTheTransferIdAndReachTheObserver() {
        List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        io.blockxfer.transport.TransportObserver observer = new io.blockxfer.transport.TransportObserver() {
            @Override
            public boolean wantsNativeTelemetry() {
                return true;
            }

            @Override
            public void nativeTelemetry(String peerId, long transferId, long postMicros, long transferMicros,
                    long bytes, long descriptors) {
                seen.add(peerId + " " + transferId + " " + bytes + " " + descriptors);
            }
        };
        DataTransport a = NixlTests.open(NixlTests.config("telemetry-observed", 32, BLOCK).observer(observer).build());
        open.add(a);
        DataTransport b = open("telemetry-observed-b", Map.of());
        a.addPeer("b", b.localDescriptor());
        long id = a.writeBlocks("b", new int[] {1, 2, 3}, new int[] {4, 5, 6});
        run(a, id);
        NixlTransferTelemetry record = a.feature(NixlTelemetry.class).orElseThrow().find(id).orElseThrow();
        assertEquals(id, record.transferId());
        assertEquals(3 * BLOCK, record.bytes());
        assertEquals(List.of("b " + id + " " + 3 * BLOCK + " 1"), seen);
        assertTrue(a.feature(NixlTelemetry.class).orElseThrow().find(id + 1000).isEmpty());
    }

    @Test
    void keepsOnlyItsHistoryAndCanBeTurnedOff() {
        DataTransport a = open("telemetry-small", Map.of(NixlOptions.TELEMETRY_HISTORY, "2"));
        DataTransport off = open("telemetry-off", Map.of(NixlOptions.TELEMETRY, "false"));
        DataTransport b = open("telemetry-target", Map.of());
        a.addPeer("b", b.localDescriptor());
        off.addPeer("b", b.localDescriptor());
        for (int i = 0; i < 5; i++) {
            run(a, a.writeBlocks("b", new int[] {i}, new int[] {i}));
            run(off, off.writeBlocks("b", new int[] {i}, new int[] {i + 8}));
        }
        NixlTelemetry small = a.feature(NixlTelemetry.class).orElseThrow();
        assertEquals(2, small.recent(10).size());
        assertEquals(5, small.totals().transfers());
        NixlTelemetry none = off.feature(NixlTelemetry.class).orElseThrow();
        assertFalse(none.capturing());
        assertTrue(none.recent(10).isEmpty());
        assertEquals(0, none.totals().transfers());
    }
}
