package io.blockxfer.ucx.bench;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.ProgressMode;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.ucx.UcxProvider;
import io.blockxfer.ucx.internal.UcxLibrary;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One-block 4 KiB transfers, one in flight, initiator and target in this JVM (the setting of the
 * issue that found the starvation), for each progress mode and three caller styles: one that spins
 * on {@code poll}, one that backs off (spin, then yield, then park growing to 50 us), one that polls
 * every 100 us. Each is measured quiet and with a CPU hog: one busy process per core. Prints a
 * markdown table of transfers/s (median of {@code bench.runs}) and the JVM's CPU use in cores; and
 * 64 x 256 KiB batches in GB/s the same way with {@code -Dbench.batch=true}.
 *
 * <p>System properties: {@code bench.seconds} per measurement (default 2), {@code bench.runs}
 * (default 3), {@code bench.modes} (default {@code POLLING_THREAD,BACKEND_THREAD}),
 * {@code bench.styles} (default {@code spin,backoff,every100us}), {@code bench.hog}
 * ({@code both} (default), {@code quiet}, {@code hog}), {@code bench.batch}.
 *
 * <p><b>Thread safety:</b> a program.
 */
public final class UcxCallerStyles {

    private UcxCallerStyles() {
    }

    /** How the caller waits between polls. */
    enum Style {
        SPIN("spin"), BACKOFF("backoff"), EVERY_100US("every100us");

        final String label;

        Style(String label) {
            this.label = label;
        }

        static Style of(String s) {
            return Arrays.stream(values()).filter(v -> v.label.equals(s)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("unknown style " + s));
        }
    }

    /** Runs the table. */
    public static void main(String[] args) throws Exception {
        UcxLibrary.ensureLoaded();
        double seconds = Double.parseDouble(System.getProperty("bench.seconds", "2"));
        int runs = Integer.getInteger("bench.runs", 3);
        boolean batch = Boolean.getBoolean("bench.batch");
        List<ProgressMode> modes = Arrays.stream(System.getProperty("bench.modes", "POLLING_THREAD,BACKEND_THREAD")
                .split(",", -1)).map(String::trim).map(ProgressMode::valueOf).toList();
        List<Style> styles = Arrays.stream(System.getProperty("bench.styles", "spin,backoff,every100us").split(",", -1))
                .map(String::trim).map(Style::of).toList();
        String hogSetting = System.getProperty("bench.hog", "both");
        List<Boolean> hogs = switch (hogSetting) {
            case "quiet" -> List.of(false);
            case "hog" -> List.of(true);
            default -> List.of(false, true);
        };
        int cores = Runtime.getRuntime().availableProcessors();
        System.out.printf(Locale.ROOT, "%s, %d cores, load average %.2f, %d x %.1f s per cell%n",
                batch ? "64 x 256 KiB batches (GB/s)" : "one-block 4 KiB transfers, one in flight (transfers/s)",
                cores, loadAverage(), runs, seconds);
        System.out.println("| mode | caller | hog | median | min | max | JVM cores |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (boolean hog : hogs) {
            List<Process> hogProcesses = hog ? startHog(cores) : List.of();
            try {
                for (ProgressMode mode : modes) {
                    for (Style style : styles) {
                        double[] r = new double[runs];
                        double cpu = 0;
                        for (int i = 0; i < runs; i++) {
                            long cpu0 = processCpuNanos();
                            long t0 = System.nanoTime();
                            r[i] = batch ? batchRun(mode, style, seconds) : oneBlockRun(mode, style, seconds);
                            cpu += (processCpuNanos() - cpu0) / (double) (System.nanoTime() - t0);
                        }
                        double[] sorted = r.clone();
                        Arrays.sort(sorted);
                        System.out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %.2f |%n", mode, style.label,
                                hog ? "yes" : "no", fmt(sorted[runs / 2], batch), fmt(sorted[0], batch),
                                fmt(sorted[runs - 1], batch), cpu / runs);
                    }
                }
            } finally {
                for (Process p : hogProcesses) {
                    p.destroyForcibly();
                }
            }
        }
    }

    private static String fmt(double v, boolean batch) {
        return batch ? String.format(Locale.ROOT, "%.2f", v) : String.format(Locale.ROOT, "%,.0f", v);
    }

    private static double oneBlockRun(ProgressMode mode, Style style, double seconds) {
        TransportConfig config = TransportConfig.builder(RegionSpec.allocate(1024, 4096)).progressMode(mode).build();
        try (DataTransport target = new UcxProvider().open(config);
                DataTransport initiator = new UcxProvider().open(config)) {
            initiator.addPeer("t", target.localDescriptor());
            int[] local = new int[1];
            int[] remote = new int[1];
            // warm-up
            long until = System.nanoTime() + 300_000_000L;
            int n = 0;
            while (System.nanoTime() < until) {
                local[0] = n % 1024;
                remote[0] = (n * 7 + 3) % 1024;
                await(initiator, initiator.writeBlocks("t", local, remote), style);
                n++;
            }
            long start = System.nanoTime();
            long end = start + (long) (seconds * 1e9);
            long done = 0;
            while (System.nanoTime() < end) {
                local[0] = (int) (done % 1024);
                remote[0] = (int) ((done * 7 + 3) % 1024);
                await(initiator, initiator.writeBlocks("t", local, remote), style);
                done++;
            }
            return done / ((System.nanoTime() - start) / 1e9);
        }
    }

    private static double batchRun(ProgressMode mode, Style style, double seconds) {
        long block = 256 * 1024;
        TransportConfig config = TransportConfig.builder(RegionSpec.allocate(64, block)).progressMode(mode).build();
        int[] local = new int[64];
        int[] remote = new int[64];
        for (int b = 0; b < 64; b++) {
            local[b] = b;
            remote[b] = (37 * b + 11) % 64;
        }
        try (DataTransport target = new UcxProvider().open(config);
                DataTransport initiator = new UcxProvider().open(config)) {
            initiator.addPeer("t", target.localDescriptor());
            for (int i = 0; i < 20; i++) {
                await(initiator, initiator.writeBlocks("t", local, remote), style);
            }
            long start = System.nanoTime();
            long end = start + (long) (seconds * 1e9);
            long batches = 0;
            while (System.nanoTime() < end) {
                await(initiator, initiator.writeBlocks("t", local, remote), style);
                batches++;
            }
            return batches * 64 * block / ((System.nanoTime() - start) / 1e9) / 1e9;
        }
    }

    private static void await(DataTransport t, long id, Style style) {
        int idle = 0;
        while (true) {
            PollResult r = t.poll("t");
            if (r.failedCount() > 0) {
                throw new IllegalStateException("transfer " + id + " failed");
            }
            if (r.doneCount() > 0) {
                return;
            }
            switch (style) {
                case SPIN -> Thread.onSpinWait();
                case BACKOFF -> {
                    idle++;
                    if (idle < 100) {
                        Thread.onSpinWait();
                    } else if (idle < 110) {
                        Thread.yield();
                    } else {
                        LockSupport.parkNanos(Math.min(50_000, 1_000L << Math.min(idle - 110, 6)));
                    }
                }
                case EVERY_100US -> LockSupport.parkNanos(100_000);
            }
        }
    }

    /** One busy process per core: other processes keeping the host's load up. */
    private static List<Process> startHog(int cores) throws Exception {
        List<Process> hog = new ArrayList<>();
        for (int i = 0; i < cores; i++) {
            hog.add(new ProcessBuilder("sh", "-c", "while :; do :; done").start());
        }
        TimeUnit.MILLISECONDS.sleep(500);
        return hog;
    }

    /** User plus system CPU time of this process ({@code /proc/self/stat}, in clock ticks of 10 ms). */
    private static long processCpuNanos() throws IOException {
        String stat = Files.readString(Path.of("/proc/self/stat"), StandardCharsets.US_ASCII);
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ", -1);
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
    }

    private static double loadAverage() throws IOException {
        return Double.parseDouble(Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII).split(" ", -1)[0]);
    }
}
