package io.blockxfer.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * No leaks under churn ({@link ChurnRun} in a child JVM with a fixed, pre-touched heap, so the Java
 * heap's growth does not hide or fake a native leak; with C1 only for peers and the interpreter
 * only for opens, so neither the C2 compiler's retained malloc memory (a one-time step of about
 * 18 MiB) nor the code cache filling up during a short run counts as a leak): file descriptors,
 * threads and RSS are flat over the second half of the run, as slopes per 1,000 cycles fitted to
 * samples taken every few cycles. Goals: 0 fds, 0 threads, under 1 MiB of RSS per 1,000 cycles (the
 * first 500 or so open/close cycles are warm-up: class loading, the JVM's and UCX's first
 * allocations; RSS rose 180 KiB per 120 cycles at cycle 400 and under 30 KiB from cycle 600). A run
 * of 600 opens, fitted from cycle 300, measured the warm-up's tail (0.8-1.1 MiB per 1,000 in two CI
 * runs); 1,200 gave 258-424 KiB, and 2,000, fitted from cycle 1,000, 33 KiB.
 *
 * <p>Short forms here; the long forms are {@code -Dblockxfer.ucx.churnPeers=100000} and
 * {@code -Dblockxfer.ucx.churnOpens=10000} (defaults 2,000 and 2,000).
 */
class UcxChurnTest {

    private static final double MAX_RSS_KIB_PER_1000 = 1024;

    /** Per 1,000 cycles over the second half: the rise of the fd and thread floors, the fitted RSS (KiB) slope. */
    private record Slopes(double fds, double threads, double rssKiB, List<long[]> samples) {
        @Override
        public String toString() {
            long[] first = samples.get(0);
            long[] last = samples.get(samples.size() - 1);
            return String.format(Locale.ROOT, "per 1,000 cycles over cycles %d-%d: %.2f fds, %.2f threads, %.0f KiB RSS"
                    + " (first sample: %d fds, %d threads, %d KiB; last: %d, %d, %d KiB)", samples.get(samples.size() / 2)[0],
                    last[0], fds, threads, rssKiB, first[1], first[2], first[3], last[1], last[2], last[3]);
        }
    }

    private static Slopes churn(String mode, int cycles, int every, String compiler) throws Exception {
        List<String> jvm = List.of("-Xms256m", "-Xmx256m", "-XX:+AlwaysPreTouch", compiler);
        List<String> cmd = new ArrayList<>(UcxTestSupport.javaCommand(ChurnRun.class.getName(), List.of(),
                List.of(mode, Integer.toString(cycles), Integer.toString(every))));
        // after the command's own -Xmx512m, which would otherwise win: the heap must stay the
        // pre-touched 256 MiB, or its growth past that (whenever the collector decides) reads as a leak
        cmd.addAll(cmd.indexOf("-cp"), jvm);
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        List<long[]> samples = new ArrayList<>();
        boolean done = false;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("SAMPLE ")) {
                    String[] f = line.split(" ", -1);
                    samples.add(new long[] {Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]),
                            Long.parseLong(f[4])});
                } else if (line.equals("DONE")) {
                    done = true;
                }
            }
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertTrue(done && p.exitValue() == 0, mode + " churn did not finish (exit " + p.exitValue() + ")");
        List<long[]> secondHalf = samples.subList(samples.size() / 2, samples.size());
        return new Slopes(floorSlope(secondHalf, 1), floorSlope(secondHalf, 2), slope(secondHalf, 3), samples);
    }

    /**
     * For counts that jitter by one while threads come and go (a progress thread still ending when
     * the sample is taken): how much the floor rose, the lowest value of the later half of
     * {@code s} minus that of its earlier half, per 1,000 cycles. A leak raises the floor.
     */
    static double floorSlope(List<long[]> s, int col) {
        List<long[]> early = s.subList(0, s.size() / 2);
        List<long[]> late = s.subList(s.size() / 2, s.size());
        long rise = late.stream().mapToLong(r -> r[col]).min().orElseThrow()
                - early.stream().mapToLong(r -> r[col]).min().orElseThrow();
        double span = late.get(late.size() / 2)[0] - early.get(early.size() / 2)[0];
        return rise / span * 1000;
    }

    /** Least-squares slope of column {@code col} against the cycle, per 1,000 cycles. */
    static double slope(List<long[]> s, int col) {
        double n = s.size();
        double mx = s.stream().mapToDouble(r -> r[0]).sum() / n;
        double my = s.stream().mapToDouble(r -> r[col]).sum() / n;
        double num = 0;
        double den = 0;
        for (long[] r : s) {
            num += (r[0] - mx) * (r[col] - my);
            den += (r[0] - mx) * (r[0] - mx);
        }
        return num / den * 1000;
    }

    private static void assertFlat(String what, Slopes s, double maxRssKiB) {
        System.out.println(what + ": " + s);
        assertTrue(s.fds() < 1, what + " leaks file descriptors: " + s);
        assertTrue(s.threads() < 1, what + " leaks threads: " + s);
        assertTrue(s.rssKiB() < maxRssKiB, what + " grows its RSS: " + s);
    }

    // full tier: a leak soak: the RSS slope is fitted over the second half of 2,000 cycles, after the
    // warm-up; the fast tier runs theSlopesArePerThousandCycles
    @Tag("full")
    @Test
    @Timeout(value = 6, unit = TimeUnit.HOURS)
    void addingAndRemovingAPeerLeaksNothing() throws Exception {
        UcxTestSupport.requireUcx();
        int cycles = Integer.getInteger("blockxfer.ucx.churnPeers", 2_000);
        assertFlat(cycles + " addPeer/removePeer cycles", churn("peers", cycles, Math.max(1, cycles / 40),
                "-XX:TieredStopAtLevel=1"), MAX_RSS_KIB_PER_1000);
    }

    // full tier: a leak soak: the RSS slope is fitted over the second half of 2,000 open/close cycles, after
    // the warm-up
    @Tag("full")
    @Test
    @Timeout(value = 6, unit = TimeUnit.HOURS)
    void openingAndClosingATransportLeaksNothing() throws Exception {
        UcxTestSupport.requireUcx();
        int cycles = Integer.getInteger("blockxfer.ucx.churnOpens", 2_000);
        assertFlat(cycles + " open/close cycles", churn("opens", cycles, Math.max(1, cycles / 40), "-Xint"),
                MAX_RSS_KIB_PER_1000);
    }

    @Test
    void theSlopesArePerThousandCycles() {
        List<long[]> s = List.of(new long[] {1000, 5, 0, 100}, new long[] {2000, 4, 0, 300},
                new long[] {3000, 5, 0, 500}, new long[] {4000, 6, 0, 700});
        assertEquals(200, slope(s, 3), 1e-9);
        assertEquals(0.5, floorSlope(s, 1), 1e-9, "floor 4 -> 5 over 2,000 cycles");
        List<long[]> jitter = List.of(new long[] {1000, 20, 0, 0}, new long[] {2000, 19, 0, 0},
                new long[] {3000, 20, 0, 0}, new long[] {4000, 19, 0, 0});
        assertEquals(0, floorSlope(jitter, 1), 1e-9);
    }
}
