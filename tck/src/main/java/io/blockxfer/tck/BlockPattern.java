package io.blockxfer.tck;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The deterministic bytes the kit writes into blocks and verifies byte for byte: every 8-byte word
 * of a block is a SplitMix64 value of the block's seed and the word's position, so a block moved to
 * the wrong place, truncated, or mixed with another is detected at its first wrong byte.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class BlockPattern {

    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED;

    private BlockPattern() {
    }

    /** The seed of block {@code block} of a pattern family {@code family}. */
    public static long seed(long family, int block) {
        return mix(family * 0x9E3779B97F4A7C15L + block);
    }

    /** Fills {@code block} with the pattern of {@code seed}. */
    public static void fill(MemorySegment block, long seed) {
        long n = block.byteSize();
        long words = n >>> 3;
        for (long w = 0; w < words; w++) {
            block.set(WORD, w << 3, mix(seed + w));
        }
        for (long o = words << 3; o < n; o++) {
            block.set(ValueLayout.JAVA_BYTE, o, (byte) mix(seed + o));
        }
    }

    /** The offset of the first byte of {@code block} that differs from the pattern of {@code seed}, or -1. */
    public static long firstMismatch(MemorySegment block, long seed) {
        long n = block.byteSize();
        long words = n >>> 3;
        for (long w = 0; w < words; w++) {
            long expected = mix(seed + w);
            long actual = block.get(WORD, w << 3);
            if (actual != expected) {
                long diff = actual ^ expected;
                return (w << 3) + (Long.numberOfTrailingZeros(diff) >>> 3);
            }
        }
        for (long o = words << 3; o < n; o++) {
            if (block.get(ValueLayout.JAVA_BYTE, o) != (byte) mix(seed + o)) {
                return o;
            }
        }
        return -1;
    }

    /** Word {@code index} (bytes {@code 8 * index} to {@code 8 * index + 7}) of the pattern of {@code seed}. */
    public static long word(long seed, long index) {
        return mix(seed + index);
    }

    private static long mix(long z) {
        z += 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
