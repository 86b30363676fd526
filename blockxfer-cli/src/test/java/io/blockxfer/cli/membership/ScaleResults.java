package io.blockxfer.cli.membership;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * The results of one run of {@link MembershipScaleBench} ({@code result-*.properties}: each figure
 * by name, as text), and the tables of a directory of them ({@code scripts/bench-membership
 * --table DIR}): the fleet's costs per size and route (etcd's streams, goroutines, RSS and CPU,
 * the keep-alives, a resolution against a get and a directory read, each member's threads, fds
 * and RSS), and the bytes and messages out of etcd per member.
 *
 * <p><b>Thread safety:</b> thread-safe (the properties are synchronized).
 */
final class ScaleResults {

    private final Properties result = new Properties();

    void put(String key, Object value) {
        String v = value instanceof Double d ? String.format(Locale.ROOT, "%.3f", d) : String.valueOf(value);
        synchronized (result) {
            result.setProperty(key, v);
        }
    }

    double get(String key) {
        synchronized (result) {
            return Double.parseDouble(result.getProperty(key, "NaN"));
        }
    }

    /** Count, p50, p99 and max of {@code millis} as {@code NAME.count}, {@code NAME.p50.ms}, ... */
    void latencies(String name, List<Double> millis) {
        List<Double> sorted = millis.stream().sorted().toList();
        put(name + ".count", sorted.size());
        if (!sorted.isEmpty()) {
            put(name + ".p50.ms", MembershipBench.percentile(sorted, 50));
            put(name + ".p99.ms", MembershipBench.percentile(sorted, 99));
            put(name + ".max.ms", sorted.getLast());
        }
    }

    void store(Path file) throws IOException {
        try (Writer wr = Files.newBufferedWriter(file)) {
            synchronized (result) {
                result.store(wr, "scripts/bench-membership --scale");
            }
        }
    }

    /** Every figure, sorted by name, one {@code name = value} a line. */
    List<String> lines() {
        synchronized (result) {
            return result.stringPropertyNames().stream().sorted().map(k -> k + " = " + result.getProperty(k)).toList();
        }
    }

    static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.isEmpty() ? Double.NaN : MembershipBench.percentile(sorted, 50);
    }

    static double delta(Map<String, Double> a, Map<String, Double> b, String key) {
        return b.getOrDefault(key, 0.0) - a.getOrDefault(key, 0.0);
    }

    // ------------------------------------------------------------------------------ the tables

    private static final String[][] FLEET = {
        {"mode", "mode", "%s"},
        {"route", "route", "%s"},
        {"members", "N", "%s"},
        {"connections", "conns", "%s"},
        {"cold.seconds", "cold s", "%.0f"},
        {"etcd.watch.streams", "etcd streams", "%.0f"},
        {"etcd.watchers", "watchers", "%.0f"},
        {"etcd.goroutines", "goroutines", "%.0f"},
        {"etcd.rss.mib", "etcd RSS MiB", "%.0f"},
        {"etcd.rss.kib.per.member", "etcd KiB/memb", "%.0f"},
        {"etcd.cores.cold", "etcd cores cold", "%.2f"},
        {"etcd.cores.steady", "etcd cores steady", "%.3f"},
        {"proxy.rss.mib", "proxy RSS MiB", "%.0f"},
        {"proxy.cores.steady", "proxy cores steady", "%.3f"},
        {"keepalives.per.second", "keep-alives/s", "%.0f"},
        {"resolve.probe.p50.ms", "resolve p50", "%.2f"},
        {"resolve.probe.p99.ms", "resolve p99", "%.2f"},
        {"get.p50.ms", "get p50", "%.2f"},
        {"get.p99.ms", "get p99", "%.2f"},
        {"read.p50.ms", "read p50", "%.2f"},
        {"read.p99.ms", "read p99", "%.2f"},
        {"member.threads", "thr/memb", "%.2f"},
        {"member.fds", "fd/memb", "%.2f"},
        {"member.rss.kib", "KiB/memb", "%.0f"},
    };

    private static final String[][] BYTES = {
        {"mode", "mode", "%s"},
        {"route", "route", "%s"},
        {"members", "N", "%s"},
        {"cold.net.bytes.per.member", "cold B/memb", "%.0f"},
        {"cold.events.per.member", "cold ev/memb", "%.1f"},
        {"cold.messages.per.member", "cold msg/memb", "%.1f"},
        {"join.net.bytes", "join B", "%.0f"},
        {"join.events", "join ev", "%.0f"},
        {"join.messages", "join msg", "%.0f"},
        {"join.net.bytes.per.existing", "join B/exist", "%.1f"},
        {"jvm.threads", "thr/JVM", "%.0f"},
        {"jvm.fds", "fd/JVM", "%.0f"},
        {"jvm.rss.kib", "RSS MiB/JVM", "MiB"},
    };

    /** Prints every {@code result-*.properties} of {@code dir} as two tables (medians of repeats), then each run's line. */
    static void table(Path dir, PrintStream out) throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> p.getFileName().toString().matches("result-.*\\.properties")).sorted().toList();
        }
        List<Properties> all = new ArrayList<>();
        for (Path f : files) {
            Properties p = new Properties();
            try (Reader r = Files.newBufferedReader(f)) {
                p.load(r);
            }
            all.add(p);
        }
        all.sort(Comparator.comparing((Properties p) -> Integer.parseInt(p.getProperty("members", "0")))
                .thenComparing(p -> p.getProperty("mode", "")).thenComparing(p -> p.getProperty("route", "")));
        Map<String, List<Properties>> cells = new LinkedHashMap<>();
        for (Properties p : all) {
            cells.computeIfAbsent(p.getProperty("mode") + " " + p.getProperty("route") + " " + p.getProperty("members"),
                    k -> new ArrayList<>()).add(p);
        }
        print(FLEET, cells, out);
        out.println();
        print(BYTES, cells, out);
        out.println();
        for (Properties p : all) {
            out.printf("%s %s %s: cold start %s s, converged %s (%s); %s members a connection; keep-alive response %s"
                    + " B; etcd %s threads, %s fds, %s MiB RSS (%s empty); proxy %s MiB RSS, %s threads; resolutions"
                    + " probed %s (max %s ms), during joins %s (p50 %s ms, p99 %s ms); gets %s, reads %s; failures %s;"
                    + " GOAWAYs for too many pings %s; load %s -> %s (probes: %s -> %s)%n",
                    p.getProperty("mode"), p.getProperty("route"), p.getProperty("members"),
                    p.getProperty("cold.seconds"), p.getProperty("cold.converged"), p.getProperty("cold.progress"),
                    p.getProperty("per.connection"), p.getProperty("keepalive.bytes"), p.getProperty("etcd.threads"),
                    p.getProperty("etcd.fds"), p.getProperty("etcd.rss.mib"), p.getProperty("etcd.rss.mib.empty"),
                    p.getProperty("proxy.rss.mib", "-"), p.getProperty("proxy.threads", "-"),
                    p.getProperty("resolve.probe.count"), p.getProperty("resolve.probe.max.ms", "-"),
                    p.getProperty("resolve.join.count"), p.getProperty("resolve.join.p50.ms", "-"),
                    p.getProperty("resolve.join.p99.ms", "-"), p.getProperty("get.count"), p.getProperty("read.count"),
                    p.getProperty("failures"), p.getProperty("ping.goaways", "-"), p.getProperty("load.start"), p.getProperty("load.end"),
                    p.getProperty("load.probe", "-"), p.getProperty("load.probe.end", "-"));
        }
    }

    private static void print(String[][] columns, Map<String, List<Properties>> cells, PrintStream out) {
        StringBuilder head = new StringBuilder("|");
        StringBuilder rule = new StringBuilder("|");
        for (String[] c : columns) {
            head.append(' ').append(c[1]).append(" |");
            rule.append("---|");
        }
        out.println(head);
        out.println(rule);
        for (List<Properties> repeats : cells.values()) {
            StringBuilder row = new StringBuilder("|");
            for (String[] c : columns) {
                List<Double> values = new ArrayList<>();
                for (Properties p : repeats) {
                    try {
                        values.add(Double.parseDouble(p.getProperty(c[0], "NaN")));
                    } catch (NumberFormatException e) {
                        values.add(Double.NaN);
                    }
                }
                double m = median(values.stream().filter(v -> !v.isNaN()).toList());
                if (c[2].equals("%s")) {
                    row.append(' ').append(repeats.getFirst().getProperty(c[0], "-"));
                } else if (Double.isNaN(m)) {
                    row.append(" -");
                } else if (c[2].equals("MiB")) {
                    row.append(' ').append(String.format(Locale.ROOT, "%.0f", m / 1024));
                } else {
                    row.append(' ').append(String.format(Locale.ROOT, c[2], m));
                }
                row.append(" |");
            }
            out.println(row);
        }
    }
}
