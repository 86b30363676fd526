package io.blockxfer.multihost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The parts of the service soak that decide its verdict: the growth fit over the second half, and
 * quarantined blocks coming back after their settle time (without which a soak that removes peers
 * every 100 ms runs out of blocks).
 */
class SoakPartsTest {

    private static List<ResourceSampler.Sample> series(double perMinute, double noise) {
        List<ResourceSampler.Sample> out = new ArrayList<>();
        SplittableRandom rng = new SplittableRandom(7);
        for (int i = 0; i <= 60; i++) {
            double m = i / 10.0;
            double warmUp = m < 3 ? 500 * m : 1500; // climbs during the first half, then flat plus the trend
            long v = Math.round(warmUp + perMinute * m + (rng.nextDouble() - 0.5) * noise);
            out.add(new ResourceSampler.Sample(m, v, v, v * 1024, v * 1024, 0, 3, 0));
        }
        return out;
    }

    @Test
    void theFitIgnoresWarmUpAndFindsAGrowthInTheSecondHalf() {
        Trend flat = Trend.of("fds", "fds", series(0, 4), s -> s.fds(), 3.0, Trend.Rule.SLOPE, 6);
        assertTrue(flat.flat(), flat.describe());
        assertEquals(0, flat.slopePerMinute(), 2.0);
        assertEquals(31, flat.fitted());

        Trend leaking = Trend.of("fds", "fds", series(20, 4), s -> s.fds(), 3.0, Trend.Rule.SLOPE, 6);
        assertFalse(leaking.flat(), leaking.describe());
        assertEquals(20, leaking.slopePerMinute(), 2.0);
    }

    @Test
    void aOneTimeRiseWithinTheAllowanceFitsUnderTheBoundAndATwiceAsLargeOneDoesNot() {
        SoakSettings.SlopeBound bound = SoakSettings.SlopeBound.parse("0+16");
        double window = 0.5;
        for (double rise : new double[] {16, 32}) {
            double[] x = new double[31];
            double[] y = new double[31];
            for (int i = 0; i <= 30; i++) {
                x[i] = window * i / 30;
                y[i] = x[i] > window / 2 ? rise : 0; // the rise in the middle of the window, the worst place
            }
            double slope = Trend.slope(x, y);
            assertEquals(rise == 16, slope <= bound.at(window), "rise " + rise + ": slope " + slope + " against "
                    + bound.at(window));
        }
        assertEquals(1.0, SoakSettings.SlopeBound.parse("1").at(15), 1e-9, "a fixed bound");
        assertEquals(1.0 + 1.5 * 16 / 15, SoakSettings.SlopeBound.parse("1+16").at(15), 1e-9);
    }

    @Test
    void aPeakRuleIgnoresSwingsButNotARisingCeiling() {
        List<ResourceSampler.Sample> swinging = new ArrayList<>();
        List<ResourceSampler.Sample> leaking = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            long v = 9 + (i * 7919L) % 9; // 9..17, no trend
            swinging.add(new ResourceSampler.Sample(i / 10.0, 0, 0, 0, 0, 0, v, 0));
            leaking.add(new ResourceSampler.Sample(i / 10.0, 0, 0, 0, 0, 0, v + i / 20, 0));
        }
        Trend ok = Trend.of("segments", "segments", swinging, s -> s.segments(), 3.0, Trend.Rule.PEAK, 0);
        assertTrue(ok.flat(), ok.describe());
        Trend bad = Trend.of("segments", "segments", leaking, s -> s.segments(), 3.0, Trend.Rule.PEAK, 0);
        assertFalse(bad.flat(), bad.describe());
        assertTrue(bad.violation().contains("peaked at 19"), bad.violation());
    }

    @Test
    void aTrendWithTooFewSamplesDoesNotPass() {
        Trend one = Trend.of("threads", "threads", List.of(new ResourceSampler.Sample(0, 1, 1, 1, 1, 0, 0, 0)),
                s -> s.threads(), 0, Trend.Rule.SLOPE, 2);
        assertFalse(one.flat(), "a single sample cannot show a trend");
    }

    @Test
    void aQuarantinedBlockComesBackAfterItsSettleTimeAndOnlyForWriting() throws InterruptedException {
        RemoteBlocks blocks = new RemoteBlocks(1, b -> 42, 400_000_000L);
        SplittableRandom rng = new SplittableRandom(1);
        int[] out = new int[1];
        assertEquals(1, blocks.take(1, true, rng, out));
        blocks.quarantine(0);
        blocks.release(0);
        assertEquals(0, blocks.take(1, false, rng, out), "quarantined");
        Thread.sleep(500);
        assertEquals(0, blocks.take(1, true, rng, out), "its contents are unknown, so it is not read");
        assertEquals(1, blocks.take(1, false, rng, out), "but it is written again");
    }

    @Test
    void withoutASettleTimeAQuarantineLastsForever() throws InterruptedException {
        RemoteBlocks remote = new RemoteBlocks(1, b -> 42);
        LocalBlocks local = new LocalBlocks(10, 1);
        SplittableRandom rng = new SplittableRandom(1);
        int[] out = new int[1];
        remote.take(1, false, rng, out);
        remote.quarantine(0);
        remote.release(0);
        local.take(1, rng, out);
        local.quarantine(10);
        Thread.sleep(20);
        assertEquals(0, remote.take(1, false, rng, out));
        assertEquals(0, local.take(1, rng, out));
    }

    @Test
    void aQuarantinedLocalBlockComesBackAfterItsSettleTime() throws InterruptedException {
        LocalBlocks local = new LocalBlocks(10, 1, 400_000_000L);
        SplittableRandom rng = new SplittableRandom(1);
        int[] out = new int[1];
        assertEquals(1, local.take(1, rng, out));
        local.quarantine(out[0]);
        assertEquals(0, local.take(1, rng, out));
        Thread.sleep(500);
        assertEquals(1, local.take(1, rng, out));
        assertEquals(10, out[0]);
    }
}
