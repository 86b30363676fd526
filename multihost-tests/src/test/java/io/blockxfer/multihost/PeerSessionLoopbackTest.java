package io.blockxfer.multihost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.loopback.LoopbackFaults;
import io.blockxfer.tck.BlockPattern;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The peer program's streaming session against the in-JVM loopback backend and its fault
 * injection: what the container suite relies on (verification, exactly-once bookkeeping, DOWN on a
 * fault, a new phase after a re-add), checked without Docker.
 */
@Timeout(60)
class PeerSessionLoopbackTest {

    private static final int BLOCKS = 32;
    private static final long BLOCK_LENGTH = 4096;
    private final Workload workload = new Workload(4, 3, 0.5, Duration.ofSeconds(60), Duration.ofSeconds(5));
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final IdLedger ledger = new IdLedger();
    private final DataTransport initiator = open(2 * workload.localBlocksPerPeer());
    private final DataTransport a = open(BLOCKS);
    private final DataTransport b = open(BLOCKS);

    private static DataTransport open(int blocks) {
        return Transports.open(TransportConfig.builder(RegionSpec.allocate(blocks, BLOCK_LENGTH))
                .transport("loopback").transferTimeout(Duration.ofMillis(400)).build());
    }

    @AfterEach
    void close() {
        initiator.close();
        a.close();
        b.close();
    }

    private PeerSession session(String peer, DataTransport target, long family, int index) {
        for (int i = 0; i < BLOCKS; i++) {
            BlockPattern.fill(target.region().block(i), BlockPattern.seed(family, i));
        }
        initiator.addPeer(peer, target.localDescriptor());
        return new PeerSession(initiator, peer, BLOCKS, family, index * workload.localBlocksPerPeer(), workload,
                ledger, events::add, 42 + index);
    }

    private String await(Predicate<String> p, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < end) {
            for (String e : events) {
                if (p.test(e)) {
                    return e;
                }
            }
            Thread.sleep(5);
        }
        throw new AssertionError("no event within " + timeout + "; events: " + events);
    }

    private static void assertHealthy(SessionStats s, String who) {
        assertTrue(s.done > 20, who + ": too few transfers: " + s.format());
        assertEquals(0, s.failed, who + ": " + s.format());
        assertClean(s, who);
        assertEquals(s.writesDone, s.verifiedWrites, who + ": every completed write is read back: " + s.format());
    }

    private static void assertClean(SessionStats s, String who) {
        assertEquals(0, s.mismatches, who + ": " + s.format());
        assertEquals(0, s.dup, who + ": " + s.format());
        assertEquals(0, s.foreign, who + ": " + s.format());
        assertEquals(0, s.lost, who + ": " + s.format());
        assertEquals(s.submitted, s.done + s.failed, who + ": " + s.format());
    }

    private static void assertModelHolds(DataTransport target, String modelEvent) {
        String spec = modelEvent.substring(modelEvent.indexOf("blocks=") + 7);
        int checked = 0;
        if (!spec.isEmpty()) {
            for (String pair : spec.split(",", -1)) {
                int colon = pair.indexOf(':');
                int block = Integer.parseInt(pair.substring(0, colon));
                long seed = Long.parseLong(pair.substring(colon + 1));
                assertEquals(-1, BlockPattern.firstMismatch(target.region().block(block), seed), "block " + block);
                checked++;
            }
        }
        assertTrue(checked > BLOCKS / 2, "model covers " + checked + " blocks: " + modelEvent);
    }

    @Test
    void healthyPeersVerifyEveryCompletionAndAKilledOneGoesDown() throws Exception {
        PeerSession sa = session("a", a, 7, 0);
        PeerSession sb = session("b", b, 8, 1);
        sa.start();
        sb.start();
        Thread.sleep(300);
        b.feature(LoopbackFaults.class).orElseThrow().kill();
        await(e -> e.startsWith("E DOWN peer=b"), Duration.ofSeconds(5));
        Thread.sleep(200);
        SessionStats statsA = sa.stop();
        SessionStats statsB = sb.stop();
        assertHealthy(statsA, "a");
        assertTrue(statsB.failed > 0, statsB.format());
        assertClean(statsB, "b");
        assertModelHolds(a, await(e -> e.startsWith("E MODEL peer=a"), Duration.ofSeconds(1)));
    }

    @Test
    void aStalledPeerMissesTheDeadlineAndWorksAgainAfterReAdd() throws Exception {
        PeerSession sa = session("a", a, 9, 0);
        sa.start();
        Thread.sleep(200);
        LoopbackFaults faults = a.feature(LoopbackFaults.class).orElseThrow();
        long t0 = System.currentTimeMillis();
        faults.stall(true);
        String down = await(e -> e.startsWith("E DOWN peer=a"), Duration.ofSeconds(5));
        long at = Long.parseLong(down.replaceAll(".* at=(\\d+) .*", "$1"));
        assertTrue(at - t0 < 2_000, "down " + (at - t0) + " ms after the stall");
        SessionStats first = sa.stop();
        assertTrue(first.failed > 0, first.format());
        assertClean(first, "a, phase 1");
        faults.stall(false);
        initiator.addPeer("a", a.localDescriptor());
        events.clear();
        sa.start();
        Thread.sleep(300);
        SessionStats second = sa.stop();
        assertHealthy(second, "a, phase 2");
        assertModelHolds(a, await(e -> e.startsWith("E MODEL peer=a"), Duration.ofSeconds(1)));
    }
}
