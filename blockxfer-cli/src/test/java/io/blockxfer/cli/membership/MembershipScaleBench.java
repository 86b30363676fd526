package io.blockxfer.cli.membership;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The membership benchmark at scale, eager against on-demand ({@code scripts/bench-membership
 * --scale}, {@code --matrix} and {@code --fleet}): {@code --members} members in {@code --jvms} JVMs
 * ({@link MembershipScaleWorker}) on one etcd, in one {@code --mode}, every {@code --per-connection}
 * members of a JVM sharing one etcd client (a process's connection), directly or through etcd's
 * gRPC proxy ({@code --proxy-pid}, the endpoints then the proxy's, {@code --etcd-metrics} etcd's
 * own). Phases:
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
 * <p>Besides: etcd's watch streams, watchers and goroutines at N members
 * ({@code etcd_debugging_mvcc_watch_stream_total}, {@code ..._watcher_total}, {@code go_goroutines}:
 * one stream per connection, however many members and partners), etcd's RSS (and its growth per
 * member from before the first join), its CPU in cores during the cold start and the steady phase
 * ({@code /proc/PID/stat}), the proxy's RSS, threads and CPU, and the lease keep-alive messages etcd
 * received a second in the steady phase; in the probe, a plain jetcd get, the same read through the
 * member's directory and a resolution, interleaved.
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
 * joins, 50 probes per JVM, a steady phase of TTL/2 (at least 20 s), seed 1, -Xmx1g per JVM. A run ends
 * early when the host's threads pass {@code --max-host-threads} (80% of {@code kernel.pid_max}).
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
    private static final String KEEP_ALIVES_RECEIVED = "grpc_server_msg_received_total/LeaseKeepAlive";

    private final Map<String, String> options;
    private final PrintStream out = System.out;
    private final List<Worker> workers = new ArrayList<>();
    private final ScaleResults result = new ScaleResults();
    private final List<Double> resolveJoin = new ArrayList<>();
    private final List<Double> resolveProbe = new ArrayList<>();
    private final List<Double> gets = new ArrayList<>();
    private final List<Double> reads = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();
    /** The GOAWAYs for too many pings that etcd sent the workers' clients (guarded by this). */
    private long pingGoaways;
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
            ScaleResults.table(Path.of(options.get("table")), System.out);
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
        // the joins alone take members / rate seconds: the wait for convergence runs two minutes past them
        int convergeTimeout = intOption("converge-timeout", Math.max(300, (int) Math.ceil(n / rate) + 120));
        int perConnection = intOption("per-connection", 1);
        long seed = Long.parseLong(option("seed", "1"));
        String xmx = option("xmx", "1g");
        String prefix = option("prefix", "/blockxfer/bench-membership-scale/");
        Path logs = Path.of(option("logs", System.getProperty("java.io.tmpdir")));
        long etcdPid = Long.parseLong(option("etcd-pid", "0"));
        long proxyPid = Long.parseLong(option("proxy-pid", "0"));
        // etcd's own counters: with a proxy, the endpoints are the proxy's, and its /metrics are etcd's, fetched
        URI metrics = URI.create(option("etcd-metrics", "http://" + endpoints.substring("etcd://".length())
                .split(",", -1)[0] + "/metrics"));
        put("mode", mode);
        put("route", proxyPid > 0 ? "proxy" : "direct");
        put("members", n);
        put("jvms", jvms);
        put("ttl", ttl);
        put("rate", rate);
        put("xmx", xmx);
        put("per.connection", perConnection);
        int connections = 0;
        for (int w = 0; w < jvms; w++) {
            int members = n / jvms + (w < n % jvms ? 1 : 0);
            connections += perConnection > 1 ? (members + perConnection - 1) / perConnection : members;
        }
        put("connections", connections);
        put("load.start", WorkerJvm.loadAverage());
        say(("membership scale bench: %s %s, %d members in %d JVMs (-Xmx%s, loopback transports), %d members a"
                + " connection (%d connections), TTL %d s, %.0f joins/s, etcd %s").formatted(mode,
                        proxyPid > 0 ? "through etcd's gRPC proxy" : "direct", n, jvms, xmx, perConnection,
                        connections, ttl, rate, endpoints));
        say("load average at start: %s".formatted(WorkerJvm.loadAverage()));

        for (int w = 0; w < jvms; w++) {
            Worker started = Worker.start(this, w, classpath, endpoints, prefix, ttl, mode, seed, xmx, perConnection,
                    logs);
            synchronized (workers) {
                workers.add(started);
            }
        }
        for (Worker w : workers) {
            w.jvm.awaitReady();
        }
        Thread.sleep(1_000);
        List<ProcessStats> baseline = workers.stream().map(w -> ProcessStats.of(w.jvm.pid())).toList();
        ProcessStats etcdEmpty = ProcessStats.of(etcdPid);
        put("etcd.rss.mib.empty", etcdEmpty.rssKib() / 1024.0);

        // cold start
        LongSupplier progress = onDemand ? () -> sum(w -> w.resolved + w.failedResolutions) : () -> sum(w -> w.adds);
        Map<String, Double> c0 = MembershipBench.scrape(metrics);
        ProcessStats etcdCold0 = ProcessStats.of(etcdPid);
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
        put("etcd.cores.cold", ProcessStats.of(etcdPid).coresSince(etcdCold0, coldSeconds));
        say("cold start: %s in %.1f s (%d of %d %s)".formatted(converged ? "converged" : "NOT converged",
                coldSeconds, progress.getAsLong(), target, onDemand ? "resolutions" : "peer additions"));
        Thread.sleep(2_000);
        Map<String, Double> c1 = MembershipBench.scrape(metrics);

        // steady: the bytes of one keep-alive response, the keep-alives a second, etcd's (and the proxy's) CPU
        Map<String, Double> s0 = MembershipBench.scrape(metrics);
        ProcessStats etcdSteady0 = ProcessStats.of(etcdPid);
        ProcessStats proxySteady0 = ProcessStats.of(proxyPid);
        Thread.sleep(steady * 1000L);
        Map<String, Double> s1 = MembershipBench.scrape(metrics);
        put("etcd.cores.steady", ProcessStats.of(etcdPid).coresSince(etcdSteady0, steady));
        if (proxyPid > 0) {
            put("proxy.cores.steady", ProcessStats.of(proxyPid).coresSince(proxySteady0, steady));
        }
        double keepAlives = delta(s0, s1, KEEP_ALIVES);
        double perKeepAlive = keepAlives > 0 ? delta(s0, s1, SENT_BYTES) / keepAlives : 0;
        put("keepalive.bytes", perKeepAlive);
        put("keepalives.per.second", delta(s0, s1, KEEP_ALIVES_RECEIVED) / steady);
        put("steady.other.messages", delta(s0, s1, SENT) - keepAlives);
        put("steady.sent.bytes.per.member.minute", delta(s0, s1, SENT_BYTES) / n / (steady / 60.0));
        costs("cold", c0, c1, perKeepAlive, n, n);

        // resources at n members
        List<ProcessStats> atN = workers.stream().map(w -> ProcessStats.of(w.jvm.pid())).toList();
        resourcesReport(baseline, atN, n);
        String names = ProcessStats.threadNames(workers.getFirst().jvm.pid());
        put("jvm0.thread.names", names);
        say("threads of JVM 0 by name (digits as #): " + names);
        Map<String, Double> gauges = MembershipBench.scrape(metrics);
        put("etcd.watch.streams", gauges.getOrDefault("etcd_debugging_mvcc_watch_stream_total", -1.0));
        put("etcd.watchers", gauges.getOrDefault("etcd_debugging_mvcc_watcher_total", -1.0));
        put("etcd.goroutines", gauges.getOrDefault("go_goroutines", -1.0));
        say("etcd at %d members: %.0f watch streams (%d connections), %.0f watchers, %.0f goroutines".formatted(n,
                get("etcd.watch.streams"), connections, get("etcd.watchers"), get("etcd.goroutines")));
        if (etcdPid > 0) {
            ProcessStats e = ProcessStats.of(etcdPid);
            put("etcd.threads", e.threads());
            put("etcd.fds", e.fds());
            put("etcd.rss.mib", e.rssKib() / 1024.0);
            put("etcd.rss.kib.per.member", (e.rssKib() - etcdEmpty.rssKib()) / (double) n);
        }
        if (proxyPid > 0) {
            ProcessStats p = ProcessStats.of(proxyPid);
            put("proxy.threads", p.threads());
            put("proxy.fds", p.fds());
            put("proxy.rss.mib", p.rssKib() / 1024.0);
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

        // probe, one JVM at a time; the host's load then, which the latencies depend on
        put("load.probe", WorkerJvm.loadAverage());
        for (int w = 0; w < jvms; w++) {
            workers.get(w).jvm.send("probe " + probes + " " + (seed * 1000 + w));
            int expect = w + 1;
            await(() -> probedCount() >= expect, 300, System.nanoTime());
        }
        synchronized (this) {
            latencies("resolve.probe", resolveProbe);
            latencies("resolve.join", resolveJoin);
            latencies("get", gets);
            latencies("read", reads);
        }
        put("load.probe.end", WorkerJvm.loadAverage());

        for (Worker w : workers) {
            w.jvm.send("quit");
        }
        for (Worker w : workers) {
            w.jvm.awaitExit(Duration.ofSeconds(60));
        }
        put("load.end", WorkerJvm.loadAverage());
        synchronized (this) {
            put("failures", failures.size());
            put("ping.goaways", pingGoaways);
            failures.stream().limit(10).forEach(f -> say("failure: " + f));
            counts.forEach(c -> say("worker " + c));
        }
        say("load average at end: %s".formatted(WorkerJvm.loadAverage()));
        String file = options.get("result");
        if (file != null) {
            result.store(Path.of(file));
        }
        result.lines().forEach(l -> say("  " + l));
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

    private void resourcesReport(List<ProcessStats> baseline, List<ProcessStats> atN, int n) {
        String[] names = {"threads", "fds", "rss.kib"};
        for (int i = 0; i < names.length; i++) {
            int k = i;
            java.util.function.ToLongFunction<ProcessStats> f = k == 0 ? ProcessStats::threads
                    : k == 1 ? ProcessStats::fds : ProcessStats::rssKib;
            double perJvm = atN.stream().mapToLong(f).average().orElse(0);
            double base = baseline.stream().mapToLong(f).average().orElse(0);
            double growth = 0;
            for (int w = 0; w < atN.size(); w++) {
                growth += f.applyAsLong(atN.get(w)) - f.applyAsLong(baseline.get(w));
            }
            put("jvm." + names[i], perJvm);
            put("jvm." + names[i] + ".empty", base);
            put("member." + names[i], growth / n);
        }
        say("per JVM at %d members (mean of %d): %.0f threads, %.0f fds, %.0f MiB RSS; per member (growth / members): %.2f threads, %.2f fds, %.0f KiB"
                .formatted(n, atN.size(), get("jvm.threads"), get("jvm.fds"), get("jvm.rss.kib") / 1024,
                        get("member.threads"), get("member.fds"), get("member.rss.kib")));
    }

    private void put(String key, Object value) {
        result.put(key, value);
    }

    private double get(String key) {
        return result.get(key);
    }

    private void latencies(String name, List<Double> millis) {
        result.latencies(name, millis);
    }

    private static double median(List<Double> values) {
        return ScaleResults.median(values);
    }

    private static double delta(Map<String, Double> a, Map<String, Double> b, String key) {
        return ScaleResults.delta(a, b, key);
    }

    private interface Condition {
        boolean holds();
    }

    /** Waits until {@code condition} holds, at most {@code seconds} after {@code since} (nanoTime). */
    private boolean await(Condition condition, int seconds, long since) throws InterruptedException {
        long deadline = since + TimeUnit.SECONDS.toNanos(seconds);
        long nextSay = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.holds()) {
            guardHost();
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

    /**
     * Ends the run (its workers killed by pid) when the host's threads pass {@code --max-host-threads}
     * (default: 80% of {@code kernel.pid_max}, 26,214 of the usual 32,768): thread ids are process
     * ids, and a host out of them starts nothing, for anyone on it.
     */
    private void guardHost() {
        long threads = WorkerJvm.hostThreads();
        long limit = Long.parseLong(option("max-host-threads", Long.toString(defaultMaxHostThreads())));
        if (threads > limit) {
            say("the host runs %d threads, more than --max-host-threads %d: ending the run".formatted(threads, limit));
            killWorkers();
            throw new IllegalStateException("the host ran " + threads + " threads (--max-host-threads " + limit + ")");
        }
    }

    private static long defaultMaxHostThreads() {
        // read as a line: some kernels' procfs answers a whole-file read of a sysctl with its first byte only
        try (java.io.BufferedReader in = Files.newBufferedReader(Path.of("/proc/sys/kernel/pid_max"))) {
            return Long.parseLong(String.valueOf(in.readLine()).trim()) * 4 / 5;
        } catch (IOException | RuntimeException e) {
            return 26_214;
        }
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
            case "d" -> reads.add(Long.parseLong(w[1]) / 1e3);
            case "probed" -> probed++;
            case "failed" -> failures.add(worker + ": " + line);
            case "counts" -> {
                counts.add(worker + ": " + line.substring("counts ".length()));
                for (String field : w) {
                    if (field.startsWith("pingGoaways=")) {
                        pingGoaways += Long.parseLong(field.substring("pingGoaways=".length()));
                    }
                }
            }
            default -> { }
        }
        notifyAll();
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
                String prefix, int ttl, String mode, long seed, String xmx, int perConnection, Path logs)
                throws IOException {
            Worker[] self = new Worker[1];
            WorkerJvm jvm = WorkerJvm.start(index, xmx, classpath, MembershipScaleWorker.class, List.of(endpoints,
                    prefix, Integer.toString(ttl), mode, Long.toString(seed), Integer.toString(perConnection)), logs,
                    line -> {
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
