package io.blockxfer.ucx.bench;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.ProgressMode;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.ucx.UcxOptions;
import io.blockxfer.ucx.UcxProvider;
import io.blockxfer.ucx.internal.UcxLibrary;
import java.lang.foreign.Arena;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * What the whole process costs while a caller waits for paced transfers: one 4 KiB WRITE every
 * 10 ms, each waited for with {@code poll(peer, limit)}, initiator and target in this JVM, for
 * each progress mode and two peers: one whose region UCX maps here (a copy) and one in caller
 * memory (UCX's puts and flush). Prints the process's CPU time (user and system, from
 * {@code /proc/self/stat}, as {@link UcxCallerStyles} reads it) over wall time in cores, the median
 * wait, and the load average; and the CPU of the initiator's progress thread and of the
 * transport's completion thread (the status thread of an engine without a completion signal), each
 * over wall time.
 *
 * <p>System properties: {@code bench.seconds} per row (default 10), {@code bench.periodMicros}
 * (default 10000), {@code bench.modes} (default {@code POLLING_THREAD,BACKEND_THREAD}).
 *
 * <p><b>Thread safety:</b> a program.
 */
public final class UcxPacedWaitCpu {

    private UcxPacedWaitCpu() {
    }

    /** Runs the rows. */
    public static void main(String[] args) throws Exception {
        UcxLibrary.ensureLoaded();
        double seconds = Double.parseDouble(System.getProperty("bench.seconds", "10"));
        long periodNanos = TimeUnit.MICROSECONDS.toNanos(Long.getLong("bench.periodMicros", 10_000));
        String[] modes = System.getProperty("bench.modes", "POLLING_THREAD,BACKEND_THREAD").split(",", -1);
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        System.out.println("| mode | peer | transfers | process cores | progress thread | completion thread | p50 wait us"
                + " | load before | load after |");
        System.out.println("|---|---|---|---|---|---|---|---|---|");
        for (String m : modes) {
            ProgressMode mode = ProgressMode.valueOf(m.trim());
            for (boolean mapped : new boolean[] {true, false}) {
                Arena arena = Arena.ofShared();
                RegionSpec targetRegion = mapped ? RegionSpec.allocate(8, 4096)
                        : RegionSpec.wrap(arena.allocate(8 * 4096, 4096), 4096);
                try (DataTransport target = new UcxProvider().open(TransportConfig.builder(targetRegion)
                                .agentName("paced-target").option(UcxOptions.KEEPALIVE, "60s").build());
                        DataTransport initiator = new UcxProvider().open(TransportConfig.builder(
                                        RegionSpec.allocate(8, 4096)).agentName("paced").progressMode(mode)
                                .option(UcxOptions.KEEPALIVE, "60s").build())) {
                    initiator.addPeer("t", target.localDescriptor());
                    for (int i = 0; i < 200; i++) {
                        transfer(initiator, i);
                    }
                    double loadBefore = os.getSystemLoadAverage();
                    long cpu0 = processCpuNanos();
                    long loop0 = threadCpuNanos("blockxfer-ucx-paced");
                    long completions0 = threadCpuNanos("blockxfer-ucx-completions-paced");
                    long t0 = System.nanoTime();
                    long end = t0 + (long) (seconds * 1e9);
                    long next = t0;
                    long[] waits = new long[(int) (seconds * 1e9 / periodNanos) + 2];
                    int n = 0;
                    while (System.nanoTime() < end && n < waits.length) {
                        waits[n] = transfer(initiator, n);
                        n++;
                        next += periodNanos;
                        long sleep = next - System.nanoTime();
                        if (sleep > 0) {
                            LockSupport.parkNanos(sleep);
                        }
                    }
                    double wall = System.nanoTime() - t0;
                    double cores = (processCpuNanos() - cpu0) / wall;
                    double loopCores = (threadCpuNanos("blockxfer-ucx-paced") - loop0) / wall;
                    double completionCores = (threadCpuNanos("blockxfer-ucx-completions-paced") - completions0) / wall;
                    long[] sorted = Arrays.copyOf(waits, n);
                    Arrays.sort(sorted);
                    System.out.printf(Locale.ROOT, "| %s | %s | %d | %.3f | %.3f | %.3f | %.1f | %.2f | %.2f |%n",
                            mode, mapped ? "mapped (copy)" : "caller memory (UCX put)", n, cores, loopCores,
                            completionCores, sorted[n / 2] / 1e3, loadBefore, os.getSystemLoadAverage());
                }
            }
        }
    }

    /** CPU time of the live thread named {@code name}, 0 if there is none (yet). */
    private static long threadCpuNanos(String name) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals(name)) {
                return Math.max(0, threads.getThreadCpuTime(t.threadId()));
            }
        }
        return 0;
    }

    private static long processCpuNanos() throws IOException {
        String stat = Files.readString(Path.of("/proc/self/stat"), StandardCharsets.US_ASCII);
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ", -1);
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
    }

    /** One WRITE, waited for; returns how long it took from submit to the wait's return. */
    private static long transfer(DataTransport initiator, int i) throws InterruptedException {
        long start = System.nanoTime();
        long id = initiator.writeBlocks("t", new int[] {i % 8}, new int[] {(i + 3) % 8});
        PollResult r = initiator.poll("t", 5, TimeUnit.SECONDS);
        if (r.doneCount() != 1 || r.doneId(0) != id) {
            throw new IllegalStateException("transfer " + i + " not reported done: " + r);
        }
        return System.nanoTime() - start;
    }
}
