package io.blockxfer.benchmarks.baseline;

import io.blockxfer.nixl.internal.RegionMemory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The ceiling: {@code MemorySegment.copy} of exactly the blocks a transfer moves, block by block,
 * between two regions of this process, one "transfer" after the other.
 *
 * <p><b>Thread safety:</b> not thread-safe.
 */
final class MemcpyContender implements Contender {

    private final boolean hugePages;

    /** A memcpy on 4 KiB pages, or on transparent huge pages as the NIXL backend allocates its regions. */
    MemcpyContender(boolean hugePages) {
        this.hugePages = hugePages;
    }

    @Override
    public String name() {
        return "memcpy (Java)";
    }

    @Override
    public String description() {
        return "MemorySegment.copy of the same blocks, one block at a time, in this JVM"
                + (hugePages ? ", on transparent huge pages" : "");
    }

    @Override
    public Map<BaselineCase, Double> round(List<BaselineCase> cases, double seconds) throws Exception {
        Map<BaselineCase, Double> rates = new EnumMap<>(BaselineCase.class);
        for (BaselineCase c : cases) {
            try (Arena arena = Arena.ofConfined()) {
                long bytes = c.regionBlocks() * c.blockBytes();
                MemorySegment src = hugePages ? RegionMemory.map(arena, bytes, true) : arena.allocate(bytes, 4096);
                MemorySegment dst = hugePages ? RegionMemory.map(arena, bytes, true) : arena.allocate(bytes, 4096);
                src.fill((byte) 1);
                dst.fill((byte) 2);
                int[][] local = new int[c.slots()][];
                int[][] remote = new int[c.slots()][];
                for (int s = 0; s < c.slots(); s++) {
                    local[s] = c.local(s);
                    remote[s] = c.remote(s);
                }
                long len = c.blockBytes();
                rates.put(c, OneInFlight.rate(c, s -> {
                    int[] l = local[s];
                    int[] r = remote[s];
                    for (int i = 0; i < l.length; i++) {
                        MemorySegment.copy(src, l[i] * len, dst, r[i] * len, len);
                    }
                }, seconds));
            }
        }
        return rates;
    }
}
