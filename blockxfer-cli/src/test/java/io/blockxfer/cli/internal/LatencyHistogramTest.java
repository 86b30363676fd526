package io.blockxfer.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

    @Test
    void bucketsRoundTripWithinThreePercent() {
        for (long v = 0; v < 1L << 40; v = v * 3 / 2 + 1) {
            int i = LatencyHistogram.index(v);
            long low = LatencyHistogram.lowest(i);
            assertTrue(low <= v && v - low <= Math.max(1, v / 32), "value " + v + " bucket " + i + " low " + low);
        }
        assertTrue(LatencyHistogram.index(Long.MAX_VALUE) < 2000);
    }

    @Test
    void quantiles() {
        LatencyHistogram h = new LatencyHistogram();
        for (int i = 1; i <= 1000; i++) {
            h.record(i * 1000L);
        }
        assertEquals(1000, h.count());
        assertEquals(1_000_000, h.max());
        assertEquals(500_000, h.quantile(0.5), 500_000 * 0.04);
        assertEquals(990_000, h.quantile(0.99), 990_000 * 0.04);
        assertTrue(h.quantile(1.0) <= h.max());
        h.reset();
        assertEquals(0, h.quantile(0.5));
    }
}
