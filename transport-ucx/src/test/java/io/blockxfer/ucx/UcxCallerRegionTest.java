package io.blockxfer.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.tck.BlockPattern;
import io.blockxfer.tck.InJvmHarness;
import io.blockxfer.tck.TargetPeer;
import io.blockxfer.tck.TwoProcessHarness;
import io.blockxfer.transport.BlockRegion;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Caller memory ({@link RegionSpec#wrap}), which the TCK does not use when a backend can allocate:
 * registered with UCX and reached by WRITE and READ, in one JVM (both sides caller memory: the
 * target's worker must progress, since UCX emulates RMA into unallocated memory with messages) and
 * across processes.
 */
class UcxCallerRegionTest {

    private static final int BLOCKS = 32;
    private static final long BLOCK = 8192;
    private static final long LOCAL = 11;
    private static final long REMOTE = 12;

    @BeforeEach
    void ucx() {
        UcxTestSupport.requireUcx();
    }

    private static void await(DataTransport t, String peer, Set<Long> ids) {
        long deadline = System.nanoTime() + 15_000_000_000L;
        while (!ids.isEmpty()) {
            PollResult r = t.poll(peer);
            for (int i = 0; i < r.doneCount(); i++) {
                ids.remove(r.doneId(i));
            }
            assertEquals(0, r.failedCount(), "a transfer failed: " + r);
            assertTrue(System.nanoTime() < deadline, "transfers " + ids + " never reported");
        }
    }

    @Test
    void callerMemoryOnBothSidesInOneJvm() {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment a = arena.allocate(BLOCKS * BLOCK + 100, 4096);
            MemorySegment b = arena.allocate(BLOCKS * BLOCK, 64);
            try (DataTransport initiator = new UcxProvider().open(TransportConfig.builder(RegionSpec.wrap(a, BLOCK)).build());
                    DataTransport target = new UcxProvider().open(TransportConfig.builder(RegionSpec.wrap(b, BLOCK)).build())) {
                assertEquals(BlockRegion.Ownership.CALLER, initiator.region().ownership());
                assertEquals(a.address(), initiator.region().baseAddress());
                for (int i = 0; i < BLOCKS; i++) {
                    BlockPattern.fill(initiator.region().block(i), BlockPattern.seed(LOCAL, i));
                    BlockPattern.fill(target.region().block(i), BlockPattern.seed(REMOTE, i));
                }
                initiator.addPeer("t", target.localDescriptor());
                Set<Long> ids = new HashSet<>();
                ids.add(initiator.writeBlocks("t", new int[] {0, 1, 2, 3, 9}, new int[] {20, 21, 22, 23, 5}));
                ids.add(initiator.readBlocks("t", new int[] {10, 11, 30}, new int[] {12, 13, 31}));
                await(initiator, "t", ids);
                int[][] written = {{0, 20}, {1, 21}, {2, 22}, {3, 23}, {9, 5}};
                for (int[] w : written) {
                    assertEquals(-1, BlockPattern.firstMismatch(target.region().block(w[1]), BlockPattern.seed(LOCAL, w[0])));
                }
                int[][] read = {{10, 12}, {11, 13}, {30, 31}};
                for (int[] r : read) {
                    assertEquals(-1, BlockPattern.firstMismatch(initiator.region().block(r[0]), BlockPattern.seed(REMOTE, r[1])));
                }
                assertEquals(-1, BlockPattern.firstMismatch(target.region().block(6), BlockPattern.seed(REMOTE, 6)));
            }
        }
    }

    @Test
    void callerMemoryAgainstATargetProcess() {
        TwoProcessHarness harness = TwoProcessHarness.of(InJvmHarness.of(UcxProvider.NAME))
                .withJvmArgs(List.of("-Djava.io.tmpdir=" + ChildTemp.directory()));
        try (Arena arena = Arena.ofShared()) {
            MemorySegment a = arena.allocate(BLOCKS * BLOCK, 4096);
            TransportConfig config = TransportConfig.builder(RegionSpec.wrap(a, BLOCK)).build();
            try (DataTransport initiator = new UcxProvider().open(config);
                    TargetPeer target = harness.openTarget(TransportConfig.builder(
                            RegionSpec.allocate(BLOCKS, BLOCK)).build())) {
                for (int i = 0; i < BLOCKS; i++) {
                    BlockPattern.fill(initiator.region().block(i), BlockPattern.seed(LOCAL, i));
                    target.fill(i, BlockPattern.seed(REMOTE, i));
                }
                initiator.addPeer("t", target.descriptor());
                Set<Long> ids = new HashSet<>();
                ids.add(initiator.writeBlocks("t", new int[] {4, 5, 6}, new int[] {7, 8, 9}));
                ids.add(initiator.readBlocks("t", new int[] {0, 1}, new int[] {30, 31}));
                await(initiator, "t", ids);
                for (int i = 0; i < 3; i++) {
                    assertEquals(-1, target.firstMismatch(7 + i, BlockPattern.seed(LOCAL, 4 + i)));
                }
                assertEquals(-1, BlockPattern.firstMismatch(initiator.region().block(0), BlockPattern.seed(REMOTE, 30)));
                assertEquals(-1, BlockPattern.firstMismatch(initiator.region().block(1), BlockPattern.seed(REMOTE, 31)));
            }
        }
    }
}
