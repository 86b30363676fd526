package io.blockxfer.cli.internal.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The clock offset between the initiator's host and a bench server's: bounded by every round trip,
 * whatever the delays each way; the fastest round trip alone when the bounds disagree (drift); no
 * offset at all where the server reads the same kernel clock.
 */
class HostClocksTest {

    private static final long OFFSET = 123_456_789_012L;

    /** A server whose clock runs {@code OFFSET} ahead, reached with the given delays there and back (ns). */
    private static Supplier<HostClocks.Sample> server(long[] there, long[] back, String bootId) {
        long[] now = {1_000_000_000L};
        int[] i = {0};
        return () -> {
            int k = i[0]++ % there.length;
            long sent = now[0];
            now[0] += there[k];
            long serverNanos = now[0] + OFFSET;
            now[0] += back[k];
            return new HostClocks.Sample(sent, serverNanos, now[0], bootId);
        };
    }

    @Test
    void theEstimateHoldsTheTrueOffsetWithinItsErrorWhateverTheDelaysEachWay() {
        long[] there = {30_000, 12_000, 80_000, 25_000};
        long[] back = {50_000, 90_000, 15_000, 60_000};
        HostClocks clocks = new HostClocks(server(there, back, "another-kernel"));
        HostClocks.Estimate e = clocks.estimate();
        assertTrue(Math.abs(e.offsetNanos() - OFFSET) <= e.errorNanos(), e::toString);
        // the bounds of all samples together: within the least delay each way, tighter than any round trip
        assertTrue(Math.abs(e.errorNanos() - (12_000 + 15_000) / 2) <= 1, e::toString);
        assertFalse(clocks.shared());
    }

    @Test
    void boundsThatDisagreeFallBackToTheFastestRoundTrip() {
        List<HostClocks.Sample> drifting = new ArrayList<>();
        drifting.add(new HostClocks.Sample(0, 1_000, 100, null)); // offset in [900, 1000]
        drifting.add(new HostClocks.Sample(1_000, 5_000, 1_040, null)); // offset in [3960, 4000], fastest
        HostClocks.Estimate e = HostClocks.of(drifting);
        assertEquals(3_980, e.offsetNanos());
        assertEquals(20, e.errorNanos());
    }

    @Test
    void aServerOnTheSameKernelSharesTheClockAndCostsNoMoreRoundTrips() {
        Optional<String> bootId = HostClocks.bootId();
        Assumptions.assumeTrue(bootId.isPresent(), "no kernel boot id to read here");
        int[] probes = {0};
        HostClocks clocks = new HostClocks(() -> {
            probes[0]++;
            long sent = System.nanoTime();
            long serverNanos = System.nanoTime();
            return new HostClocks.Sample(sent, serverNanos, System.nanoTime(), bootId.get());
        });
        assertEquals(new HostClocks.Estimate(0, 0), clocks.estimate());
        assertTrue(clocks.shared());
        assertEquals(HostClocks.SAMPLES, probes[0]);
        assertEquals(new HostClocks.Estimate(0, 0), clocks.estimate());
        assertEquals(HostClocks.SAMPLES, probes[0], "decided once per session");
    }

    @Test
    void theEstimateCanBeAskedForOnOneKernelWhereTheTrueOffsetIsZero() {
        Optional<String> bootId = HostClocks.bootId();
        Assumptions.assumeTrue(bootId.isPresent(), "no kernel boot id to read here");
        System.setProperty(HostClocks.ESTIMATE_PROPERTY, "true");
        try {
            HostClocks clocks = new HostClocks(() -> {
                long sent = System.nanoTime();
                long serverNanos = System.nanoTime();
                return new HostClocks.Sample(sent, serverNanos, System.nanoTime(), bootId.get());
            });
            HostClocks.Estimate e = clocks.estimate();
            assertFalse(clocks.shared());
            assertTrue(e.errorNanos() > 0 && Math.abs(e.offsetNanos()) <= e.errorNanos(), e::toString);
        } finally {
            System.clearProperty(HostClocks.ESTIMATE_PROPERTY);
        }
    }

    @Test
    void theSameBootIdWithAClockThatDisagreesIsNotShared() {
        Optional<String> bootId = HostClocks.bootId();
        Assumptions.assumeTrue(bootId.isPresent(), "no kernel boot id to read here");
        // the same kernel, but a clock an hour ahead (a time namespace): the bounds exclude 0
        HostClocks clocks = new HostClocks(server(new long[] {20_000}, new long[] {20_000}, bootId.get()));
        HostClocks.Estimate e = clocks.estimate();
        assertFalse(clocks.shared());
        assertTrue(Math.abs(e.offsetNanos() - OFFSET) <= e.errorNanos(), e::toString);
    }

    @Test
    void theServersAnswerCarriesItsClockAndBootId() throws Exception {
        long before = System.nanoTime();
        Message m = HostClocks.answer();
        long after = System.nanoTime();
        assertEquals("clock", m.type());
        long nanos = m.number("nanos", Long.MIN_VALUE, Long.MAX_VALUE);
        assertTrue(before <= nanos && nanos <= after, m::toString);
        assertEquals(HostClocks.bootId(), m.optionalText("bootId"));
    }
}
