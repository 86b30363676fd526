package io.blockxfer.benchmarks;

import io.blockxfer.transport.CompletionHandler;
import io.blockxfer.transport.DataTransport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * What a paced caller that waits costs the whole process, in its steady state: one 1 x 4 KiB
 * WRITE every {@code 1/rate} seconds on a {@code parkNanos} schedule, each waited for with
 * {@code poll(peer, handler, limit)}, initiator and target of one backend in this JVM with the
 * backend's defaults; {@code WARM_UP} seconds first (2 unless given; unmeasured, so that the JIT
 * is done: a short one shows what the compiler's threads add), then {@code SECONDS} measured. Prints per row the rate achieved, the process's CPU (user and system,
 * every thread, Java and native) as cores and per transfer, the p50 from submit to the wait's
 * return, the threads that used the most CPU (from {@code /proc/self/task}) and the load average.
 * The row {@code none} keeps the schedule with no transfer at all: the floor, what a thread that
 * wakes {@code rate} times a second costs on this machine. Rounds alternate the rows.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar io.blockxfer.benchmarks.PacedWaitCpu [ROUNDS [RATE [SECONDS [BACKENDS [WARM_UP]]]]]
 * java --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar io.blockxfer.benchmarks.PacedWaitCpu 3 10000 5 none,loopback,ucx,nixl
 * </pre>
 *
 * <p><b>Thread safety:</b> a program.
 */
public final class PacedWaitCpu {

    private static final int TOP_THREADS = 3;
    private static final long CLOCK_TICK_NANOS = 10_000_000L;
    private static final String ROWS = "none,loopback,ucx,nixl";

    private PacedWaitCpu() {
    }

    /** Runs the rows; see the class comment for the arguments. */
    public static void main(String[] args) throws InterruptedException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        double rate = args.length > 1 ? Double.parseDouble(args[1]) : 10_000.0;
        double seconds = args.length > 2 ? Double.parseDouble(args[2]) : 5.0;
        String[] rows = (args.length > 3 ? args[3] : ROWS).split(",", -1);
        double warmUp = args.length > 4 ? Double.parseDouble(args[4]) : 2.0;
        long periodNanos = Math.round(1e9 / rate);
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < rows.length; i++) {
                String row = rows[(i + r) % rows.length].trim();
                System.out.println("round " + (r + 1) + " " + run(row, periodNanos, seconds, warmUp));
            }
        }
    }

    private static String run(String backend, long periodNanos, double seconds, double warmUp)
            throws InterruptedException {
        if (backend.equals("none")) {
            pace(null, periodNanos, warmUp, new long[1]);
            return measure(backend, null, periodNanos, seconds);
        }
        try (Pair pair = Pair.open(backend, 8, 4096)) {
            pace(pair.initiator, periodNanos, warmUp, new long[1]);
            return measure(backend, pair.initiator, periodNanos, seconds);
        }
    }

    private static String measure(String name, @Nullable DataTransport initiator, long periodNanos, double seconds)
            throws InterruptedException {
        long[] waits = new long[(int) (seconds * 1e9 / periodNanos) + 16];
        String load = loadAverage();
        Map<String, Long> threads0 = threadTicks();
        long cpu0 = processCpuNanos();
        long start = System.nanoTime();
        int n = pace(initiator, periodNanos, seconds, waits);
        double wall = System.nanoTime() - start;
        long cpu = processCpuNanos() - cpu0;
        Map<String, Long> threads1 = threadTicks();
        List<Map.Entry<String, Long>> busiest = new ArrayList<>();
        for (Map.Entry<String, Long> e : threads1.entrySet()) {
            long ticks = e.getValue() - threads0.getOrDefault(e.getKey(), 0L);
            if (ticks > 0) {
                busiest.add(Map.entry(e.getKey(), ticks));
            }
        }
        busiest.sort(Map.Entry.<String, Long>comparingByValue().reversed());
        StringBuilder top = new StringBuilder();
        for (Map.Entry<String, Long> e : busiest.subList(0, Math.min(TOP_THREADS, busiest.size()))) {
            top.append(String.format(Locale.ROOT, " %s %.3f;", e.getKey(), e.getValue() * CLOCK_TICK_NANOS / wall));
        }
        long[] sorted = Arrays.copyOf(waits, Math.min(n, waits.length));
        Arrays.sort(sorted);
        double p50 = sorted.length == 0 ? 0 : sorted[sorted.length / 2] / 1e3;
        return String.format(Locale.ROOT, "%-9s %8.0f/s  cores %.3f  CPU %.1f us/transfer  p50 %.1f us  threads:%s  load %s",
                name, n / wall * 1e9, cpu / wall, cpu / 1e3 / Math.max(1, n), p50, top, load);
    }

    /**
     * Submits and waits on the schedule for {@code seconds} (only idles on it when
     * {@code initiator} is null); records each transfer's time in {@code waits} while it has room.
     */
    private static int pace(@Nullable DataTransport initiator, long periodNanos, double seconds, long[] waits)
            throws InterruptedException {
        int[] local = {0};
        int[] remote = {0};
        CompletionHandler ignore = (id, ok) -> {
            if (!ok) {
                throw new IllegalStateException("transfer " + id + " failed");
            }
        };
        long start = System.nanoTime();
        long end = start + (long) (seconds * 1e9);
        long due = start;
        int n = 0;
        long now;
        while ((now = System.nanoTime()) - end < 0) {
            while ((now = System.nanoTime()) - due < 0) {
                LockSupport.parkNanos(due - now);
            }
            due = Math.max(due + periodNanos, now - 2 * periodNanos);
            if (initiator != null) {
                local[0] = n & 7;
                remote[0] = n & 7;
                initiator.writeBlocks(Pair.PEER, local, remote);
                while (initiator.poll(Pair.PEER, ignore, 1, TimeUnit.SECONDS) == 0) {
                    if (System.nanoTime() - now > TimeUnit.SECONDS.toNanos(30)) {
                        throw new IllegalStateException(initiator.backendName() + ": no report within 30 s");
                    }
                }
            }
            if (n < waits.length) {
                waits[n] = System.nanoTime() - now;
            }
            n++;
        }
        return n;
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII).split(" ", -1);
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "?";
        }
    }

    /** CPU clock ticks (user and system) of each live thread of this process, by name and id. */
    private static Map<String, Long> threadTicks() {
        Map<String, Long> ticks = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    String name = Files.readString(task.resolve("comm"), StandardCharsets.UTF_8).strip();
                    String stat = Files.readString(task.resolve("stat"), StandardCharsets.US_ASCII);
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ", -1);
                    ticks.put(name.replace(' ', '_') + "#" + task.getFileName(),
                            Long.parseLong(f[11]) + Long.parseLong(f[12]));
                } catch (NoSuchFileException e) {
                    // the thread ended while we looked
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return ticks;
    }
}
