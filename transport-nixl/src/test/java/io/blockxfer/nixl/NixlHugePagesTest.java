package io.blockxfer.nixl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.nixl.internal.RegionMemory;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.TransportConfig;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A region the backend allocates ({@code RegionSpec.allocate}) lies in the kernel's transparent huge
 * pages, the initiator's and the target's alike, and still moves the right bytes; with
 * {@link NixlOptions#HUGE_PAGES} off it has ordinary pages. The kernel's mode decides what can be
 * checked: {@code never} gives no huge pages at all (those checks are skipped, saying so), and
 * {@code always} gives them to every large mapping (then the opted-out check is skipped).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class NixlHugePagesTest {

    private static final int BLOCKS = 32;
    private static final long BLOCK = 256 * 1024;

    @Test
    void aBackendRegionLiesInHugePagesOnBothSidesAndMovesTheRightBytes() throws IOException {
        NixlTests.assumeNixl();
        String mode = RegionMemory.transparentHugePageMode();
        Assumptions.assumeTrue(mode.equals("madvise") || mode.equals("always"),
                "this kernel gives no transparent huge pages (mode " + mode + ")");
        try (DataTransport initiator = NixlTests.open(config("thp-initiator", Map.of()));
                DataTransport target = NixlTests.open(config("thp-target", Map.of()))) {
            MemorySegment source = initiator.region().segment();
            MemorySegment destination = target.region().segment();
            assertEquals(0, source.address() % RegionMemory.HUGE_PAGE, "the region starts on a huge page");
            for (int b = 0; b < BLOCKS; b++) {
                NixlTests.fill(initiator.region().block(b), 7, b);
            }
            initiator.addPeer("target", target.localDescriptor());
            int[] local = new int[BLOCKS];
            int[] remote = new int[BLOCKS];
            for (int b = 0; b < BLOCKS; b++) {
                local[b] = b;
                remote[b] = BLOCKS - 1 - b;
            }
            long id = initiator.writeBlocks("target", local, remote);
            assertEquals(Map.of(id, true), NixlTests.await(initiator, "target", Set.of(id), Duration.ofSeconds(30)));
            for (int b = 0; b < BLOCKS; b++) {
                assertEquals(-1, NixlTests.mismatch(target.region().block(BLOCKS - 1 - b), 7, b), "block " + b);
            }
            assertTrue(RegionMemory.hugePageBytes(source.address(), source.byteSize()) > 0,
                    "the initiator's region, filled by this thread, is in huge pages");
            assertTrue(RegionMemory.hugePageBytes(destination.address(), destination.byteSize()) > 0,
                    "the target's region, first touched by NIXL's copy, is in huge pages");
        }
    }

    @Test
    void turnedOffTheRegionHasOrdinaryPages() throws IOException {
        NixlTests.assumeNixl();
        String mode = RegionMemory.transparentHugePageMode();
        Assumptions.assumeTrue(mode.equals("madvise"),
                "only where huge pages are given on advice can their absence be told (mode " + mode + ")");
        try (DataTransport t = NixlTests.open(config("thp-off", Map.of(NixlOptions.HUGE_PAGES, "false")))) {
            MemorySegment region = t.region().segment();
            region.fill((byte) 1);
            assertEquals(0, RegionMemory.hugePageBytes(region.address(), region.byteSize()));
        }
    }

    @Test
    void theMappingIsZeroedAndGoneWhenItsArenaCloses() throws IOException {
        NixlTests.assumeNixl();
        long address;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment s = RegionMemory.map(arena, RegionMemory.HUGE_PAGE * 3 + 4096, true);
            address = s.address();
            assertEquals(RegionMemory.HUGE_PAGE * 3 + 4096, s.byteSize());
            assertEquals(-1, s.mismatch(MemorySegment.ofArray(new byte[(int) s.byteSize()])), "zeroed");
            s.set(ValueLayout.JAVA_BYTE, s.byteSize() - 1, (byte) 5);
            assertTrue(mapped(address));
        }
        assertFalse(mapped(address), "the region's mapping is unmapped when its arena closes");
    }

    private static boolean mapped(long address) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            int dash = line.indexOf('-');
            int space = line.indexOf(' ');
            long from = Long.parseUnsignedLong(line.substring(0, dash), 16);
            long to = Long.parseUnsignedLong(line.substring(dash + 1, space), 16);
            if (Long.compareUnsigned(address, from) >= 0 && Long.compareUnsigned(address, to) < 0) {
                return true;
            }
        }
        return false;
    }

    private static TransportConfig config(String name, Map<String, String> options) {
        return NixlTests.config(name, BLOCKS, BLOCK).options(options).build();
    }
}
