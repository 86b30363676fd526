package io.blockxfer.cli.membership;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What {@code /proc} says of a process, for the membership benches: its threads, open file
 * descriptors and RSS, its CPU time, and its threads by name.
 *
 * @param threads threads now; -1 when the process is gone
 * @param fds open file descriptors; -1 when gone
 * @param rssKib resident set, KiB; -1 when gone
 * @param cpuTicks user and system CPU time so far, in clock ticks ({@value #TICKS_PER_SECOND} a second)
 */
record ProcessStats(long threads, long fds, long rssKib, long cpuTicks) {

    /** Linux's {@code USER_HZ}. */
    static final int TICKS_PER_SECOND = 100;

    /** The stats of {@code pid} now; all -1 when it is gone. */
    static ProcessStats of(long pid) {
        long threads = -1;
        long rss = -1;
        long fds = -1;
        long cpu = -1;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("Threads:")) {
                    threads = Long.parseLong(line.substring(8).trim());
                } else if (line.startsWith("VmRSS:")) {
                    rss = Long.parseLong(line.substring(6).trim().split("\\s+", -1)[0]);
                }
            }
            try (Stream<Path> s = Files.list(Path.of("/proc/" + pid + "/fd"))) {
                fds = s.count();
            }
            // /proc/PID/stat: the command may hold spaces, so count from its closing parenthesis
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ", -1);
            cpu = Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime
        } catch (IOException | RuntimeException e) {
            // gone, or another kernel's format: -1
        }
        return new ProcessStats(threads, fds, rss, cpu);
    }

    /** The CPU this process used between {@code earlier} and now, in cores ({@code seconds} apart). */
    double coresSince(ProcessStats earlier, double seconds) {
        return cpuTicks < 0 || earlier.cpuTicks < 0 || seconds <= 0 ? -1
                : (cpuTicks - earlier.cpuTicks) / (double) TICKS_PER_SECOND / seconds;
    }

    /** The threads of {@code pid} by name ({@code /proc/PID/task/T/comm}, digits as {@code #}), most first. */
    static String threadNames(long pid) {
        Map<String, Integer> byName = new HashMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path t : tasks.toList()) {
                try {
                    byName.merge(Files.readString(t.resolve("comm")).trim().replaceAll("[0-9]+", "#"), 1,
                            Integer::sum);
                } catch (IOException e) {
                    // ended meanwhile
                }
            }
        } catch (IOException e) {
            return "unknown";
        }
        return byName.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(8)
                .map(e -> e.getKey().replace(' ', '_') + "=" + e.getValue()).reduce((a, b) -> a + " " + b)
                .orElse("");
    }
}
