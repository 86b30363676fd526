package io.blockxfer.cli.membership;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The membership benchmark ({@code scripts/bench-membership}): {@code --jvms} JVMs of
 * {@code --members} members each ({@link MembershipWorker}) on one etcd. Four phases:
 *
 * <ol>
 *   <li><b>ramp</b>: every member joins, at random moments over {@code --ramp};
 *   <li><b>churn</b>: for {@code --churn}, members leave (a goodbye) and new ones join at random,
 *       {@code --churn-rate} of each per second on average (Poisson);
 *   <li><b>steady</b>: nothing changes for {@code --steady}; etcd's counters ({@code /metrics} on
 *       its client port) are read at its start and end;
 *   <li><b>kill</b>: one JVM is SIGKILLed; its members are removed when their leases expire.
 * </ol>
 *
 * <p>It reports: per join, the time from the joiner's start until it and every member present
 * before it have asked their transports to add each other ("every member sees every other"); per
 * goodbye, until every other member removed it; per killed member, from the SIGKILL until every
 * other member removed it (p50, p99, max); and etcd's requests and bytes per member per minute at
 * steady state. Every JVM it starts it ends, by pid.
 *
 * <p><b>Thread safety:</b> a program; shared state is guarded by {@code this}.
 */
public final class MembershipBench {

    private final Map<String, String> options;
    private final PrintStream out = System.out;
    private final List<WorkerJvm> workers = new ArrayList<>();
    private final Random random;
    // every time in microseconds of the wall clock
    private final Map<String, Long> joinStart = new HashMap<>();
    private final Map<String, Long> joined = new HashMap<>();
    private final Map<String, Long> leaveStart = new HashMap<>();
    private final Map<String, Integer> workerOf = new HashMap<>();
    /** subject -> observer -> first add after the subject's start. */
    private final Map<String, Map<String, Long>> added = new HashMap<>();
    /** subject -> observer -> first remove. */
    private final Map<String, Map<String, Long>> removed = new HashMap<>();
    private final List<String> failures = new ArrayList<>();
    private final List<String> counts = new ArrayList<>();
    private int nextId;

    private MembershipBench(Map<String, String> options) {
        this.options = options;
        this.random = new Random(Long.parseLong(options.getOrDefault("seed", "1")));
    }

    /** {@code --endpoints etcd://127.0.0.1:P --classpath CP [--jvms 4] [--members 50] ...}. */
    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("not an option: " + args[i]);
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        Locale.setDefault(Locale.ROOT);
        MembershipBench bench = new MembershipBench(options);
        Thread cleanup = new Thread(bench::killWorkers, "membership-bench-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
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

    private Duration seconds(String name, int otherwise) {
        return Duration.ofSeconds(intOption(name, otherwise));
    }

    private void run() throws Exception {
        String endpoints = options.get("endpoints");
        String classpath = options.get("classpath");
        if (endpoints == null || classpath == null) {
            throw new IllegalArgumentException("--endpoints and --classpath are required");
        }
        int jvms = intOption("jvms", 4);
        int perJvm = intOption("members", 50);
        int ttl = intOption("ttl", 15);
        Duration ramp = seconds("ramp", 20);
        Duration churn = seconds("churn", 60);
        double churnRate = Double.parseDouble(option("churn-rate", "1"));
        Duration steady = seconds("steady", 60);
        String prefix = option("prefix", "/blockxfer/bench-membership/");
        Path logs = Path.of(option("logs", System.getProperty("java.io.tmpdir")));
        URI metrics = URI.create("http://" + endpoints.substring("etcd://".length()).split(",", -1)[0] + "/metrics");
        int total = jvms * perJvm;
        say("membership bench: %d members in %d JVMs (loopback transports), TTL %d s, etcd %s, prefix %s"
                .formatted(total, jvms, ttl, endpoints, prefix));
        say("load average at start: %s".formatted(WorkerJvm.loadAverage()));

        for (int w = 0; w < jvms; w++) {
            int index = w;
            WorkerJvm started = WorkerJvm.start(w, "512m", classpath, MembershipWorker.class, List.of(endpoints,
                    prefix, Integer.toString(ttl)), logs, line -> heard(index, line));
            synchronized (workers) {
                workers.add(started);
            }
        }
        for (WorkerJvm w : workers) {
            w.awaitReady();
        }

        // ramp: every member joins at a random moment
        long rampStart = MembershipWorker.nowMicros();
        List<long[]> plan = new ArrayList<>();
        for (int w = 0; w < jvms; w++) {
            for (int m = 0; m < perJvm; m++) {
                plan.add(new long[] {(long) (random.nextDouble() * ramp.toMillis()), w});
            }
        }
        plan.sort((a, b) -> Long.compare(a[0], b[0]));
        long t0 = System.nanoTime();
        for (long[] p : plan) {
            WorkerJvm.sleepUntil(t0, p[0]);
            join((int) p[1]);
        }
        awaitConverged(Duration.ofMinutes(2));
        long rampEnd = MembershipWorker.nowMicros();
        say("ramp: %d joined in %.1f s, all converged %.1f s after the first join".formatted(total,
                ramp.toMillis() / 1e3,
                (rampEnd - rampStart) / 1e6));

        // churn: leaves and joins at random
        long churnStart = MembershipWorker.nowMicros();
        long c0 = System.nanoTime();
        long at = 0;
        int churned = 0;
        while (true) {
            at += (long) (-Math.log(1 - random.nextDouble()) / (2 * churnRate) * 1000);
            if (at > churn.toMillis()) {
                break;
            }
            WorkerJvm.sleepUntil(c0, at);
            if (random.nextBoolean()) {
                String leaving = randomLiveMember();
                if (leaving != null) {
                    leave(leaving);
                    churned++;
                }
            } else {
                join(random.nextInt(jvms));
                churned++;
            }
        }
        awaitConverged(Duration.ofMinutes(2));
        say("churn: %d joins and leaves in %.1f s".formatted(churned,
                (MembershipWorker.nowMicros() - churnStart) / 1e6));

        // steady: etcd's counters over a quiet interval
        Thread.sleep(5_000);
        Map<String, Double> before = scrape(metrics);
        long s0 = System.nanoTime();
        Thread.sleep(steady.toMillis());
        Map<String, Double> after = scrape(metrics);
        double minutes = (System.nanoTime() - s0) / 60e9;
        int live = liveMembers().size();
        reportSteady(before, after, minutes, live);

        // kill: one JVM, no goodbye
        WorkerJvm victim = workers.getFirst();
        Set<String> killed = new HashSet<>(liveMembers().stream().filter(id -> workerOf.get(id) == victim.index)
                .toList());
        long killAt = MembershipWorker.nowMicros();
        victim.kill();
        Predicate<String> survivor = id -> workerOf.get(id) != victim.index;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ttl + 60L);
        while (System.nanoTime() < deadline && !allRemoved(killed, survivor)) {
            Thread.sleep(200);
        }
        say("");
        say("phase                                   count      p50 s      p99 s      max s   not done");
        report("join: joiner and all others see each other", joinTimes(rampStart, Long.MAX_VALUE));
        report("  of which in the ramp", joinTimes(rampStart, churnStart));
        report("  of which in the churn", joinTimes(churnStart, Long.MAX_VALUE));
        report("goodbye: removed by every other member", leaveTimes());
        report("SIGKILL of " + killed.size() + ": removed by every other", killTimes(killed, killAt, survivor));

        for (WorkerJvm w : workers) {
            if (w != victim) {
                w.send("quit");
            }
        }
        for (WorkerJvm w : workers) {
            if (w != victim) {
                w.awaitExit(Duration.ofSeconds(60));
            }
        }
        synchronized (this) {
            say("");
            say("member failures: %s".formatted(failures.isEmpty() ? "none" : failures));
            counts.forEach(c -> say("worker %s".formatted(c)));
        }
        say("load average at end: %s".formatted(WorkerJvm.loadAverage()));
    }

    // ------------------------------------------------------------------------------ actions

    private synchronized void join(int worker) throws IOException {
        String id = "m" + nextId++;
        workerOf.put(id, worker);
        joinStart.put(id, MembershipWorker.nowMicros());
        workers.get(worker).send("join " + id);
    }

    private void leave(String id) throws IOException {
        int worker;
        synchronized (this) {
            leaveStart.put(id, MembershipWorker.nowMicros());
            worker = workerOf.get(id);
        }
        workers.get(worker).send("leave " + id);
    }

    private synchronized @Nullable String randomLiveMember() {
        List<String> live = liveMembers();
        return live.isEmpty() ? null : live.get(random.nextInt(live.size()));
    }

    /** Members that joined and have not been told to leave. */
    private synchronized List<String> liveMembers() {
        return joined.keySet().stream().filter(id -> !leaveStart.containsKey(id)).sorted().toList();
    }

    // ------------------------------------------------------------------------------ what workers say

    synchronized void heard(int worker, String line) {
        String[] w = line.split(" ", 4);
        switch (w[0]) {
            case "add" -> added.computeIfAbsent(w[2], k -> new HashMap<>()).putIfAbsent(w[1], Long.parseLong(w[3]));
            case "remove" -> removed.computeIfAbsent(w[2], k -> new HashMap<>()).putIfAbsent(w[1],
                    Long.parseLong(w[3]));
            case "joined" -> joined.put(w[1], Long.parseLong(w[3]));
            case "failed" -> failures.add(line);
            case "counts" -> counts.add(worker + ": " + line.substring("counts ".length()));
            default -> { }
        }
        notifyAll();
    }

    // ------------------------------------------------------------------------------ measures

    /** The members that were present (joined, not leaving) during [{@code from}, {@code to}]. */
    private List<String> presentThroughout(long from, long to) {
        List<String> present = new ArrayList<>();
        joined.forEach((id, t) -> {
            Long gone = leaveStart.get(id);
            if (t <= from && (gone == null || gone > to)) {
                present.add(id);
            }
        });
        return present;
    }

    private static final long WINDOW_MICROS = 60_000_000;

    /**
     * Per member that started in [{@code from}, {@code to}): the time from its start until it and
     * each member present before it (and through the next minute) asked their transports to add
     * each other; -1 when that never happened.
     */
    private synchronized List<Double> joinTimes(long from, long to) {
        List<Double> times = new ArrayList<>();
        joinStart.forEach((x, start) -> {
            if (start < from || start >= to || leaveStart.getOrDefault(x, Long.MAX_VALUE) < start + WINDOW_MICROS
                    || !joined.containsKey(x)) {
                return;
            }
            long last = joined.get(x);
            for (String y : presentThroughout(start, start + WINDOW_MICROS)) {
                Long yx = added.getOrDefault(x, Map.of()).get(y);
                Long xy = added.getOrDefault(y, Map.of()).get(x);
                if (yx == null || xy == null) {
                    times.add(-1.0);
                    return;
                }
                last = Math.max(last, Math.max(yx, xy));
            }
            times.add((last - start) / 1e6);
        });
        return times;
    }

    /** Per goodbye: the time from the leave until every member present throughout removed it. */
    private synchronized List<Double> leaveTimes() {
        List<Double> times = new ArrayList<>();
        leaveStart.forEach((x, start) -> {
            if (!joined.containsKey(x)) {
                return;
            }
            times.add(removedBy(x, start, presentThroughout(start, start + WINDOW_MICROS)));
        });
        return times;
    }

    private synchronized List<Double> killTimes(Set<String> killed, long killAt, Predicate<String> survivor) {
        List<String> observers = liveMembers().stream().filter(survivor).toList();
        return killed.stream().map(x -> removedBy(x, killAt, observers)).toList();
    }

    private double removedBy(String x, long start, List<String> observers) {
        long last = start;
        for (String y : observers) {
            Long t = removed.getOrDefault(x, Map.of()).get(y);
            if (t == null) {
                return -1;
            }
            last = Math.max(last, t);
        }
        return (last - start) / 1e6;
    }

    private synchronized boolean allRemoved(Set<String> killed, Predicate<String> survivor) {
        return killTimes(killed, 0, survivor).stream().allMatch(t -> t >= 0);
    }

    /** Waits until every member asked for has joined and every two present members added each other. */
    private synchronized void awaitConverged(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!converged()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                say("warning: not converged within %s".formatted(timeout));
                return;
            }
            TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, 500_000_000));
        }
    }

    private boolean converged() {
        for (String id : joinStart.keySet()) {
            if (!joined.containsKey(id) && failures.stream().noneMatch(f -> f.startsWith("failed " + id + " "))) {
                return false;
            }
        }
        List<String> live = liveMembers();
        for (String x : live) {
            Map<String, Long> seen = added.getOrDefault(x, Map.of());
            for (String y : live) {
                if (!x.equals(y) && !seen.containsKey(y)) {
                    return false;
                }
            }
        }
        for (String x : leaveStart.keySet()) {
            Map<String, Long> gone = removed.getOrDefault(x, Map.of());
            for (String y : live) {
                if (joined.get(y) < leaveStart.get(x) && !gone.containsKey(y)) {
                    return false;
                }
            }
        }
        return true;
    }

    private void report(String what, List<Double> times) {
        List<Double> done = times.stream().filter(t -> t >= 0).sorted().toList();
        int notDone = times.size() - done.size();
        if (done.isEmpty()) {
            say("%-38s %6d %10s %10s %10s %10d".formatted(what, times.size(), "-", "-", "-", notDone));
            return;
        }
        say("%-38s %6d %10.3f %10.3f %10.3f %10d".formatted(what, times.size(), percentile(done, 50),
                percentile(done, 99),
                done.getLast(), notDone));
    }

    /** The nearest-rank percentile of sorted values. */
    static double percentile(List<Double> sorted, double p) {
        int rank = (int) Math.ceil(p / 100 * sorted.size());
        return sorted.get(Math.max(0, rank - 1));
    }

    // ------------------------------------------------------------------------------ etcd's counters

    /** etcd's counters, summed over their labels; the gRPC ones also by method ({@code NAME/METHOD}). */
    static Map<String, Double> scrape(URI metrics) throws IOException {
        HttpURLConnection c = (HttpURLConnection) metrics.toURL().openConnection();
        c.setConnectTimeout(5_000);
        c.setReadTimeout(10_000);
        String body;
        try (var in = c.getInputStream()) {
            body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            c.disconnect();
        }
        Map<String, Double> sums = new TreeMap<>();
        for (String line : body.split("\n", -1)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            String series = line.substring(0, space);
            double value = Double.parseDouble(line.substring(space + 1));
            int brace = series.indexOf('{');
            String name = brace < 0 ? series : series.substring(0, brace);
            sums.merge(name, value, Double::sum);
            if (name.equals("grpc_server_msg_received_total") || name.equals("grpc_server_msg_sent_total")
                    || name.equals("grpc_server_handled_total")) {
                String method = label(series, "grpc_method");
                sums.merge(name + "/" + method, value, Double::sum);
            }
        }
        return sums;
    }

    private static String label(String series, String name) {
        int i = series.indexOf(name + "=\"");
        if (i < 0) {
            return "?";
        }
        int start = i + name.length() + 2;
        return series.substring(start, series.indexOf('"', start));
    }

    private void reportSteady(Map<String, Double> before, Map<String, Double> after, double minutes, int live) {
        say("steady: %d members over %.2f min; etcd's counters (delta per member per minute):"
                .formatted(live, minutes));
        double scale = 1 / (minutes * live);
        for (String counter : List.of("grpc_server_msg_received_total", "grpc_server_msg_sent_total",
                "grpc_server_handled_total", "etcd_network_client_grpc_received_bytes_total",
                "etcd_network_client_grpc_sent_bytes_total")) {
            say("  %-48s %12.2f".formatted(counter, delta(before, after, counter) * scale));
        }
        Set<String> byMethod = new java.util.TreeSet<>();
        after.keySet().stream().filter(k -> k.startsWith("grpc_server_msg_received_total/")).forEach(byMethod::add);
        for (String k : byMethod) {
            double d = delta(before, after, k);
            if (d > 0) {
                say("    received %-39s %12.2f".formatted(k.substring(k.indexOf('/') + 1), d * scale));
            }
        }
    }

    private static double delta(Map<String, Double> before, Map<String, Double> after, String key) {
        return after.getOrDefault(key, 0.0) - before.getOrDefault(key, 0.0);
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
            for (WorkerJvm w : workers) {
                w.kill();
            }
        }
    }
}
