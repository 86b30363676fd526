package io.blockxfer.cli.internal;

import java.util.Arrays;

/**
 * A fixed-size log-linear histogram of nanosecond latencies: exact below 64 ns, then 32 buckets
 * per power of two (about 3% resolution) up to {@code Long.MAX_VALUE}. Recording allocates
 * nothing, so it can sit in a measured loop.
 *
 * <p><b>Thread safety:</b> not thread-safe; confined to the measuring thread.
 */
public final class LatencyHistogram {

    private static final int SUB_BITS = 5;
    private static final int SUB = 1 << SUB_BITS;
    private static final int LINEAR = 2 * SUB;
    private static final int BUCKETS = LINEAR + (63 - SUB_BITS - 1) * SUB;

    private final long[] counts = new long[BUCKETS];
    private long total;
    private long max;

    /** Records one latency; negative values count as 0. */
    public void record(long nanos) {
        long v = Math.max(0, nanos);
        counts[index(v)]++;
        total++;
        if (v > max) {
            max = v;
        }
    }

    /** Forgets everything recorded. */
    public void reset() {
        Arrays.fill(counts, 0);
        total = 0;
        max = 0;
    }

    /** How many latencies were recorded. */
    public long count() {
        return total;
    }

    /** The largest latency recorded, exactly. */
    public long max() {
        return max;
    }

    /**
     * The latency at quantile {@code q} (0 to 1): the middle of the bucket holding it, never above
     * {@link #max()}; 0 when nothing was recorded.
     */
    public long quantile(double q) {
        if (total == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(q * total));
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return Math.min(max, middle(i));
            }
        }
        return max;
    }

    static int index(long v) {
        if (v < LINEAR) {
            return (int) v;
        }
        int exponent = 63 - Long.numberOfLeadingZeros(v);
        int shift = exponent - SUB_BITS;
        int mantissa = (int) (v >>> shift) - SUB;
        return LINEAR + (exponent - SUB_BITS - 1) * SUB + mantissa;
    }

    static long lowest(int index) {
        if (index < LINEAR) {
            return index;
        }
        int k = index - LINEAR;
        int exponent = k / SUB + SUB_BITS + 1;
        long mantissa = k % SUB + SUB;
        return mantissa << (exponent - SUB_BITS);
    }

    private static long middle(int index) {
        if (index < LINEAR) {
            return index;
        }
        long low = lowest(index);
        long width = 1L << (63 - Long.numberOfLeadingZeros(low) - SUB_BITS);
        return low + width / 2;
    }
}
