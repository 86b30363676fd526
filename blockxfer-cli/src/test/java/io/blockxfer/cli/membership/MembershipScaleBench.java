package io.blockxfer.cli.membership;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.io.Writer;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

/**
 * The membership benchmark at scale, eager against on-demand ({@code scripts/bench-membership
 * --scale} and {@code --matrix}): {@code --members} members in {@code --jvms} JVMs
 * ({@link MembershipScaleWorker}) on one etcd, in one {@code --mode}. Phases:
 *
 * <ol>
 *   <li><b>cold start</b>: member {@code i} joins JVM {@code i % jvms} at {@code i / rate}
 *       seconds; in the on-demand mode each resolves {@value MembershipScaleWorker#PARTNERS}
 *       partners of its JVM (those whose join was asked before its own, then a top-up from all);
 *       it ends when every member has asked its transport to add every other (eager) or every
 *       resolution has completed (on-demand), plus 2 s;
 *   <li><b>steady</b>: {@code --steady} seconds of nothing but keep-alives, which give the bytes
 *       of one keep-alive response;
 *   <li><b>joins</b>: {@code --joins} more members, one at a time, each until it converged (as
 *       above) plus 1 s;
 *   <li><b>probe</b>: in each JVM in turn, {@code --probes} rounds of one plain jetcd get and one
 *       resolution of a member not held yet (on-demand; eager: the gets alone).
 * </ol>
 *
 * <p>etcd's counters ({@code /metrics}) are read at the start and end of each phase and of each
 * join. Reported per cold start and per join: {@code etcd_network_client_grpc_sent_bytes_total}
 * (raw, and net of the lease keep-alive responses: their count, from
 * {@code grpc_server_msg_sent_total{grpc_method="LeaseKeepAlive"}}, times the bytes of one from
 * the steady phase), {@code etcd_debugging_mvcc_events_total} (watch events sent), and the gRPC
 * messages sent but the keep-alives. Each worker's threads, file descriptors and RSS
 * ({@code /proc/PID/status}, {@code /proc/PID/fd}) after its warm-up (no member) and after the
 * cold start; per member: the growth summed over the JVMs, divided by the members.
 *
 * <p>Defaults: 4 JVMs, 200 members, TTL 60 s (keep-alives every 20 s: less to subtract), 10 joins/s, 5
 * joins, 50 probes per JVM, a steady phase of TTL/2 (at least 20 s), seed 1, -Xmx1g per JVM.
 *
 * <p>{@code --table DIR} prints the results ({@code result-*.properties}) of a directory as one
 * table instead.
 *
 * <p><b>Thread safety:</b> a program; shared state is guarded by {@code this}.
 */
public final class MembershipScaleBench {

    private static final String SENT_BYTES = "etcd_network_client_grpc_sent_bytes_total";
    private static final String RECEIVED_BYTES = "etcd_network_client_grpc_received_bytes_total";
    private static final String EVENTS = "etcd_debugging_mvcc_events_total";
    private static final String SENT = "grpc_server_msg_sent_total";
    private static final String KEEP_ALIVES = SENT + "/LeaseKeepAlive";

    private final Map<String, String> options;
    private final PrintStream out = System.out;
    private final List<Worker> workers = new ArrayList<>();
    private final Properties result = new Properties();
    private final List<Double> resolveJoin = new ArrayList<>();
    private final List<Double> resolveProbe = new ArrayList<>();
    private final List<Double> gets = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();
    private final List<String> counts = new ArrayList<>();
    private int probed;

    private MembershipScaleBench(Map<String, String> options) {
        this.options = options;
    }

    /** {@code --endpoints etcd://127.0.0.1:P --classpath CP --mode eager|on-demand [--members 200] ...}. */
    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("not an option: " + args[i]);
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        Locale.setDefault(Locale.ROOT);
        if (options.containsKey("table")) {
            table(Path.of(options.get("table")), System.out);
            return;
        }
        MembershipScaleBench bench = new MembershipScaleBench(options);
        Runtime.getRuntime().addShutdownHook(new Thread(bench::killWorkers, "membership-scale-cleanup"));
        try {
            bench.run();
        } finally {
            bench.killWorkers();
        }
    }

    private String option(String name, String otherwise) {
        return options.getOrDefault(name, otherwise);
    }

    private int intOption(String name, int otherwise) {
        return Integer.parseInt(option(name, Integer.toString(otherwise)));
    }

    private void run() throws Exception {
        String endpoints = options.get("endpoints");
        String classpath = options.get("classpath");
        String mode = option("mode", "eager");
        if (endpoints == null || classpath == null) {
            throw new IllegalArgumentException("--endpoints and --classpath are required");
        }
        boolean onDemand = switch (mode) {
            case "eager" -> false;
            case "on-demand" -> true;
            default -> throw new IllegalArgumentException("--mode must be eager or on-demand: " + mode);
        };
        int jvms = intOption("jvms", 4);
        int n = intOption("members", 200);
        int ttl = intOption("ttl", 60);
        double rate = Double.parseDouble(option("rate", "10"));
        int extraJoins = intOption("joins", 5);
        int probes = intOption("probes", 50);
        int steady = intOption("steady", Math.max(20, ttl / 2)); // a keep-alive every TTL/3: some in it
        int convergeTimeout = intOption("converge-timeout", 300);
        long seed = Long.parseLong(option("seed", "1"));
        String xmx = option("xmx", "1g");
        String prefix = option("prefix", "/blockxfer/bench-membership-scale/");
        Path logs = Path.of(option("logs", System.getProperty("java.io.tmpdir")));
        long etcdPid = Long.parseLong(option("etcd-pid", "0"));
        URI metrics = URI.create("http://" + endpoints.substring("etcd://".length()).split(",", -1)[0] + "/metrics");
        put("mode", mode);
        put("members", n);
        put("jvms", jvms);
        put("ttl", ttl);
        put("rate", rate);
        put("xmx", xmx);
        put("load.start", WorkerJvm.loadAverage());
        say("membership scale bench: %s, %d members in %d JVMs (-Xmx%s, loopback transports), TTL %d s, %.0f joins/s, etcd %s"
                .formatted(mode, n, jvms, xmx, ttl, rate, endpoints));
        say("load average at start: %s".formatted(WorkerJvm.loadAverage()));

        for (int w = 0; w < jvms; w++) {
            Worker started = Worker.start(this, w, classpath, endpoints, prefix, ttl, mode, seed, xmx, logs);
            synchronized (workers) {
                workers.add(started);
            }
        }
        for (Worker w : workers) {
            w.jvm.awaitReady();
        }
        Thread.sleep(1_000);
        List<long[]> baseline = workers.stream().map(w -> resources(w.jvm.pid())).toList();

        // cold start
        LongSupplier progress = onDemand ? () -> sum(w -> w.resolved + w.failedResolutions) : () -> sum(w -> w.adds);
        Map<String, Double> c0 = MembershipBench.scrape(metrics);
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            WorkerJvm.sleepUntil(t0, (long) (i * 1000 / rate));
            workers.get(i % jvms).jvm.send("join m" + i);
        }
        boolean built = await(() -> sum(w -> w.members) >= n, convergeTimeout, t0);
        if (onDemand && built) {
            for (Worker w : workers) {
                w.jvm.send("topup");
            }
        }
        long target = onDemand ? (long) MembershipScaleWorker.PARTNERS * n : (long) n * (n - 1);
        boolean converged = built && await(() -> progress.getAsLong() >= target, convergeTimeout, t0);
        double coldSeconds = (System.nanoTime() - t0) / 1e9;
        put("cold.seconds", coldSeconds);
        put("cold.converged", converged);
        put("cold.progress", progress.getAsLong() + "/" + target);
        say("cold start: %s in %.1f s (%d of %d %s)".formatted(converged ? "converged" : "NOT converged",
                coldSeconds, progress.getAsLong(), target, onDemand ? "resolutions" : "peer additions"));
        Thread.sleep(2_000);
        Map<String, Double> c1 = MembershipBench.scrape(metrics);

        // steady: the bytes of one keep-alive response
        Map<String, Double> s0 = MembershipBench.scrape(metrics);
        Thread.sleep(steady * 1000L);
        Map<String, Double> s1 = MembershipBench.scrape(metrics);
        double keepAlives = delta(s0, s1, KEEP_ALIVES);
        double perKeepAlive = keepAlives > 0 ? delta(s0, s1, SENT_BYTES) / keepAlives : 0;
        put("keepalive.bytes", perKeepAlive);
        put("steady.other.messages", delta(s0, s1, SENT) - keepAlives);
        put("steady.sent.bytes.per.member.minute", delta(s0, s1, SENT_BYTES) / n / (steady / 60.0));
        costs("cold", c0, c1, perKeepAlive, n, n);

        // resources at n members
        List<long[]> atN = workers.stream().map(w -> resources(w.jvm.pid())).toList();
        resourcesReport(baseline, atN, n);
        String names = threadNames(workers.getFirst().jvm.pid());
        put("jvm0.thread.names", names);
        say("threads of JVM 0 by name (digits as #): " + names);
        Map<String, Double> gauges = MembershipBench.scrape(metrics);
        put("etcd.watch.streams", gauges.getOrDefault("etcd_debugging_mvcc_watch_stream_total", -1.0));
        put("etcd.watchers", gauges.getOrDefault("etcd_debugging_mvcc_watcher_total", -1.0));
        put("etcd.goroutines", gauges.getOrDefault("go_goroutines", -1.0));
        say("etcd at %d members: %.0f watch streams, %.0f watchers, %.0f goroutines".formatted(n,
                get("etcd.watch.streams"), get("etcd.watchers"), get("etcd.goroutines")));
        if (etcdPid > 0) {
            long[] e = resources(etcdPid);
            put("etcd.threads", e[0]);
            put("etcd.fds", e[1]);
            put("etcd.rss.mib", e[2] / 1024.0);
        }

        // joins, one at a time
        List<Map<String, Double>> joinCosts = new ArrayList<>();
        List<Double> joinSeconds = new ArrayList<>();
        for (int j = 0; j < extraJoins; j++) {
            int size = n + j + 1;
            long joinTarget = onDemand ? (long) MembershipScaleWorker.PARTNERS * size : (long) size * (size - 1);
            Map<String, Double> a = MembershipBench.scrape(metrics);
            long j0 = System.nanoTime();
            workers.get((n + j) % jvms).jvm.send("join m" + (n + j));
            boolean ok = await(() -> sum(w -> w.members) >= size && progress.getAsLong() >= joinTarget, 120, j0);
            joinSeconds.add(ok ? (System.nanoTime() - j0) / 1e9 : -1);
            Thread.sleep(1_000);
            Map<String, Double> b = MembershipBench.scrape(metrics);
            Map<String, Double> cost = new LinkedHashMap<>();
            double sent = delta(a, b, SENT_BYTES);
            double ka = delta(a, b, KEEP_ALIVES);
            cost.put("sent.bytes", sent);
            cost.put("net.bytes", sent - ka * perKeepAlive);
            cost.put("events", delta(a, b, EVENTS));
            cost.put("messages", delta(a, b, SENT) - ka);
            cost.put("received.bytes", delta(a, b, RECEIVED_BYTES));
            joinCosts.add(cost);
            say("join %d (%d existing): %s in %.2f s".formatted(j + 1, size - 1, cost, joinSeconds.getLast()));
        }
        for (String k : List.of("sent.bytes", "net.bytes", "events", "messages", "received.bytes")) {
            put("join." + k, median(joinCosts.stream().map(c -> c.get(k)).toList()));
            put("join." + k + ".per.existing", median(joinCosts.stream().map(c -> c.get(k)).toList()) / (n + 0.0));
        }
        put("join.seconds", median(joinSeconds));

        // probe, one JVM at a time
        for (int w = 0; w < jvms; w++) {
            workers.get(w).jvm.send("probe " + probes + " " + (seed * 1000 + w));
            int expect = w + 1;
            await(() -> probedCount() >= expect, 300, System.nanoTime());
        }
        synchronized (this) {
            latencies("resolve.probe", resolveProbe);
            latencies("resolve.join", resolveJoin);
            latencies("get", gets);
        }

        for (Worker w : workers) {
            w.jvm.send("quit");
        }
        for (Worker w : workers) {
            w.jvm.awaitExit(Duration.ofSeconds(60));
        }
        put("load.end", WorkerJvm.loadAverage());
        synchronized (this) {
            put("failures", failures.size());
            failures.stream().limit(10).forEach(f -> say("failure: " + f));
            counts.forEach(c -> say("worker " + c));
        }
        say("load average at end: %s".formatted(WorkerJvm.loadAverage()));
        String file = options.get("result");
        if (file != null) {
            try (Writer wr = Files.newBufferedWriter(Path.of(file))) {
                result.store(wr, "scripts/bench-membership --scale");
            }
        }
        result.stringPropertyNames().stream().sorted().forEach(k -> say("  %s = %s".formatted(k,
                result.getProperty(k))));
    }

    // ------------------------------------------------------------------------------ measures

    private void costs(String phase, Map<String, Double> a, Map<String, Double> b, double perKeepAlive, int members,
            int divisor) {
        double sent = delta(a, b, SENT_BYTES);
        double ka = delta(a, b, KEEP_ALIVES);
        put(phase + ".sent.bytes.per.member", sent / divisor);
        put(phase + ".net.bytes.per.member", (sent - ka * perKeepAlive) / divisor);
        put(phase + ".events.per.member", delta(a, b, EVENTS) / divisor);
        put(phase + ".messages.per.member", (delta(a, b, SENT) - ka) / divisor);
        put(phase + ".received.bytes.per.member", delta(a, b, RECEIVED_BYTES) / divisor);
        put(phase + ".keepalives", ka);
        for (String method : List.of("Range", "Watch", "Txn", "Put", "LeaseGrant", "LeaseRevoke")) {
            double d = delta(a, b, SENT + "/" + method);
            if (d > 0) {
                put(phase + ".messages." + method + ".per.member", d / divisor);
            }
        }
        say("%s: %d members, per member: %.0f B sent (net of keep-alives %.0f B), %.1f events, %.1f messages"
                .formatted(phase, members, sent / divisor, (sent - ka * perKeepAlive) / divisor,
                        delta(a, b, EVENTS) / divisor, (delta(a, b, SENT) - ka) / divisor));
    }

    private void resourcesReport(List<long[]> baseline, List<long[]> atN, int n) {
        String[] names = {"threads", "fds", "rss.kib"};
        for (int i = 0; i < names.length; i++) {
            int k = i;
            double perJvm = atN.stream().mapToLong(r -> r[k]).average().orElse(0);
            double base = baseline.stream().mapToLong(r -> r[k]).average().orElse(0);
            double growth = 0;
            for (int w = 0; w < atN.size(); w++) {
                growth += atN.get(w)[k] - baseline.get(w)[k];
            }
            put("jvm." + names[i], perJvm);
            put("jvm." + names[i] + ".empty", base);
            put("member." + names[i], growth / n);
        }
        say("per JVM at %d members (mean of %d): %.0f threads, %.0f fds, %.0f MiB RSS; per member (growth / members): %.2f threads, %.2f fds, %.0f KiB"
                .formatted(n, atN.size(), get("jvm.threads"), get("jvm.fds"), get("jvm.rss.kib") / 1024,
                        get("member.threads"), get("member.fds"), get("member.rss.kib")));
    }

    /** Threads, open file descriptors and RSS (KiB) of a process, from /proc. */
    static long[] resources(long pid) {
        long threads = -1;
        long rss = -1;
        long fds = -1;
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
        } catch (IOException e) {
            // gone: -1
        }
        return new long[] {threads, fds, rss};
    }

    /** The threads of a process by name ({@code /proc/PID/task/T/comm}, digits as {@code #}), most first. */
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

    private void latencies(String name, List<Double> millis) {
        List<Double> sorted = millis.stream().sorted().toList();
        put(name + ".count", sorted.size());
        if (!sorted.isEmpty()) {
            put(name + ".p50.ms", MembershipBench.percentile(sorted, 50));
            put(name + ".p99.ms", MembershipBench.percentile(sorted, 99));
            put(name + ".max.ms", sorted.getLast());
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.isEmpty() ? Double.NaN : MembershipBench.percentile(sorted, 50);
    }

    private static double delta(Map<String, Double> a, Map<String, Double> b, String key) {
        return b.getOrDefault(key, 0.0) - a.getOrDefault(key, 0.0);
    }

    private void put(String key, Object value) {
        String v = value instanceof Double d ? String.format(Locale.ROOT, "%.3f", d) : String.valueOf(value);
        synchronized (result) {
            result.setProperty(key, v);
        }
    }

    private double get(String key) {
        synchronized (result) {
            return Double.parseDouble(result.getProperty(key, "NaN"));
        }
    }

    private interface Condition {
        boolean holds();
    }

    /** Waits until {@code condition} holds, at most {@code seconds} after {@code since} (nanoTime). */
    private boolean await(Condition condition, int seconds, long since) throws InterruptedException {
        long deadline = since + TimeUnit.SECONDS.toNanos(seconds);
        long nextSay = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                say("warning: not done within %d s".formatted(seconds));
                return false;
            }
            if (System.nanoTime() > nextSay) {
                nextSay += TimeUnit.SECONDS.toNanos(30);
                say("  ... %d members, %d peer additions, %d resolutions (load %s)".formatted(sum(w -> w.members),
                        sum(w -> w.adds), sum(w -> w.resolved + w.failedResolutions), WorkerJvm.loadAverage()));
            }
            synchronized (this) {
                wait(100);
            }
        }
        return true;
    }

    private interface Field {
        long of(Worker w);
    }

    private long sum(Field f) {
        synchronized (workers) {
            long s = 0;
            for (Worker w : workers) {
                synchronized (w) {
                    s += f.of(w);
                }
            }
            return s;
        }
    }

    private synchronized int probedCount() {
        return probed;
    }

    // ------------------------------------------------------------------------------ what workers say

    synchronized void heard(int worker, String line) {
        String[] w = line.split(" ", -1);
        switch (w[0]) {
            case "r" -> {
                if (!w[3].equals("ok")) {
                    failures.add(worker + ": " + line);
                } else if (w[1].equals("probe")) {
                    resolveProbe.add(Long.parseLong(w[2]) / 1e3);
                } else {
                    resolveJoin.add(Long.parseLong(w[2]) / 1e3);
                }
            }
            case "g" -> gets.add(Long.parseLong(w[1]) / 1e3);
            case "probed" -> probed++;
            case "failed" -> failures.add(worker + ": " + line);
            case "counts" -> counts.add(worker + ": " + line.substring("counts ".length()));
            default -> { }
        }
        notifyAll();
    }

    // ------------------------------------------------------------------------------ the table

    private static final String[][] COLUMNS = {
        {"mode", "mode", "%s"},
        {"members", "N", "%s"},
        {"cold.seconds", "cold s", "%.0f"},
        {"cold.net.bytes.per.member", "cold B/memb", "%.0f"},
        {"cold.events.per.member", "cold ev/memb", "%.1f"},
        {"cold.messages.per.member", "cold msg/memb", "%.1f"},
        {"join.net.bytes", "join B", "%.0f"},
        {"join.events", "join ev", "%.0f"},
        {"join.messages", "join msg", "%.0f"},
        {"join.net.bytes.per.existing", "join B/exist", "%.1f"},
        {"resolve.probe.p50.ms", "resolve p50 ms", "%.2f"},
        {"resolve.probe.p99.ms", "resolve p99 ms", "%.2f"},
        {"resolve.probe.max.ms", "resolve max ms", "%.2f"},
        {"get.p50.ms", "get p50 ms", "%.2f"},
        {"get.p99.ms", "get p99 ms", "%.2f"},
        {"jvm.threads", "thr/JVM", "%.0f"},
        {"member.threads", "thr/memb", "%.2f"},
        {"jvm.fds", "fd/JVM", "%.0f"},
        {"member.fds", "fd/memb", "%.2f"},
        {"jvm.rss.kib", "RSS MiB/JVM", "MiB"},
        {"member.rss.kib", "RSS KiB/memb", "%.0f"},
    };

    /** Prints every {@code result-*.properties} of {@code dir} as one table (medians of repeats). */
    static void table(Path dir, PrintStream out) throws IOException {
        Map<String, List<Properties>> cells = new LinkedHashMap<>();
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
                .thenComparing(p -> p.getProperty("mode", "")));
        for (Properties p : all) {
            cells.computeIfAbsent(p.getProperty("mode") + " " + p.getProperty("members"), k -> new ArrayList<>()).add(p);
        }
        StringBuilder head = new StringBuilder("|");
        StringBuilder rule = new StringBuilder("|");
        for (String[] c : COLUMNS) {
            head.append(' ').append(c[1]).append(" |");
            rule.append("---|");
        }
        out.println(head);
        out.println(rule);
        for (List<Properties> repeats : cells.values()) {
            StringBuilder row = new StringBuilder("|");
            for (String[] c : COLUMNS) {
                List<Double> values = new ArrayList<>();
                String text = repeats.getFirst().getProperty(c[0], "-");
                for (Properties p : repeats) {
                    try {
                        values.add(Double.parseDouble(p.getProperty(c[0], "NaN")));
                    } catch (NumberFormatException e) {
                        values.add(Double.NaN);
                    }
                }
                double m = median(values.stream().filter(v -> !v.isNaN()).toList());
                if (c[2].equals("%s")) {
                    row.append(' ').append(text);
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
        out.println();
        for (Properties p : all) {
            out.printf("%s %s: cold start %s s, converged %s (%s); join %s s (median); keep-alive response %s B;"
                    + " etcd %s threads, %s fds, %s MiB RSS, %s watch streams, %s watchers; resolutions probed %s,"
                    + " during joins %s (p50 %s ms,"
                    + " p99 %s ms); gets %s; failures %s; load %s -> %s%n",
                    p.getProperty("mode"), p.getProperty("members"), p.getProperty("cold.seconds"),
                    p.getProperty("cold.converged"), p.getProperty("cold.progress"), p.getProperty("join.seconds"),
                    p.getProperty("keepalive.bytes"), p.getProperty("etcd.threads"), p.getProperty("etcd.fds"),
                    p.getProperty("etcd.rss.mib"), p.getProperty("etcd.watch.streams", "-"),
                    p.getProperty("etcd.watchers", "-"), p.getProperty("resolve.probe.count"),
                    p.getProperty("resolve.join.count"), p.getProperty("resolve.join.p50.ms", "-"),
                    p.getProperty("resolve.join.p99.ms", "-"), p.getProperty("get.count"), p.getProperty("failures"),
                    p.getProperty("load.start"), p.getProperty("load.end"));
        }
    }

    // ------------------------------------------------------------------------------ plumbing

    private void say(String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }

    private void killWorkers() {
        synchronized (workers) {
            for (Worker w : workers) {
                w.jvm.kill();
            }
        }
    }

    /** One worker JVM and its last status line. */
    private static final class Worker {
        final WorkerJvm jvm;
        long members;
        long adds;
        long resolved;
        long failedResolutions;

        private Worker(WorkerJvm jvm) {
            this.jvm = jvm;
        }

        static Worker start(MembershipScaleBench bench, int index, String classpath, String endpoints,
                String prefix, int ttl, String mode, long seed, String xmx, Path logs) throws IOException {
            Worker[] self = new Worker[1];
            WorkerJvm jvm = WorkerJvm.start(index, xmx, classpath, MembershipScaleWorker.class, List.of(endpoints,
                    prefix, Integer.toString(ttl), mode, Long.toString(seed)), logs, line -> {
                        if (line.startsWith("status ")) {
                            Worker me = self[0];
                            if (me != null) { // a status line before start returned: the next one says it again
                                me.status(line.split(" ", -1));
                            }
                        } else {
                            bench.heard(index, line);
                        }
                    });
            self[0] = new Worker(jvm);
            return self[0];
        }

        private synchronized void status(String[] f) {
            members = Long.parseLong(f[1]);
            adds = Long.parseLong(f[2]);
            resolved = Long.parseLong(f[3]);
            failedResolutions = Long.parseLong(f[4]);
        }
    }
}
