package io.blockxfer.multihost;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The command line of {@link ServiceSoak}: {@code --name value} pairs, {@code --opt key=value}
 * repeatable (transport options on top of the backend's {@link SameHostProfile}).
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param backend the backend under test
 * @param ucxTls {@code sm} or {@code tcp}: the UCX transports of the {@link SameHostProfile}
 * @param duration how long peers are churned and killed; the report compares the second half of it
 *     with the first
 * @param reportDir where {@code report.md}, {@code result.txt} and the targets' logs go
 * @param targets how many target peers
 * @param targetBlocks blocks of each target's region
 * @param blockLength the block length in bytes
 * @param churnInterval one peer removed or re-added per interval
 * @param killInterval one target killed (SIGKILL) and restarted per interval; zero turns kills off
 * @param transferTimeout the transfer deadline of every transport
 * @param settle how long blocks a failed transfer touched stay out of use
 * @param sampleInterval how often the initiator's file descriptors, threads and RSS are sampled
 * @param verifyEvery a removed peer's memory is checked against the model at every n-th re-add
 * @param livenessWindow every registered peer that is neither killed nor restarting must complete a
 *     verified transfer in each window of this length
 * @param workload the stream each peer session drives
 * @param seed the seed of the sessions' random choices
 * @param bounds how much the initiator's resources may grow
 * @param options extra transport options
 */
record SoakSettings(String backend, String ucxTls, Duration duration, Path reportDir, int targets, int targetBlocks,
        long blockLength, Duration churnInterval, Duration killInterval, Duration transferTimeout, Duration settle,
        Duration sampleInterval, int verifyEvery, Duration livenessWindow, Workload workload, long seed, Bounds bounds,
        Map<String, String> options) {

    /**
     * How much the initiator's resources may grow over the second half of the run.
     *
     * @param fds open file descriptors
     * @param threads live threads
     * @param rssMiB resident set size without the shared segments' pages, in MiB
     * @param shmRiseMiB how many MiB more of shared-memory segments may be mapped at the peak of the
     *     second half than at the peak of the first
     */
    record Bounds(SlopeBound fds, SlopeBound threads, SlopeBound rssMiB, double shmRiseMiB) {
    }

    /**
     * The largest least-squares slope per minute that passes, for a fit over a window of a given
     * length: a steady growth per minute, plus a one-time rise after warm-up (a pool that grows to
     * its peak once). A rise of {@code h} in the middle of a window of {@code T} minutes fits a slope
     * of {@code 1.5 h / T}, so the bound is {@code steadyPerMinute + 1.5 oneTimeRise / T}: loose for
     * the short form, tight for a 30-minute run.
     *
     * @param steadyPerMinute the growth per minute that passes however long the run
     * @param oneTimeRise the one-time rise that passes
     */
    record SlopeBound(double steadyPerMinute, double oneTimeRise) {

        /** The bound for a fit over {@code windowMinutes}. */
        double at(double windowMinutes) {
            return steadyPerMinute + (oneTimeRise == 0 ? 0 : 1.5 * oneTimeRise / windowMinutes);
        }

        /** {@code steady} alone, or {@code steady+rise}. */
        static SlopeBound parse(String text) {
            int plus = text.indexOf('+');
            return plus < 0 ? new SlopeBound(Double.parseDouble(text), 0)
                    : new SlopeBound(Double.parseDouble(text.substring(0, plus)),
                            Double.parseDouble(text.substring(plus + 1)));
        }
    }

    /** Parses {@code args}; see the module README for every option and its default. */
    static SoakSettings parse(String[] args) {
        Map<String, String> named = new LinkedHashMap<>();
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value, got '" + a + "'");
            }
            String value = args[++i];
            if (a.equals("--opt")) {
                int eq = value.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("--opt needs key=value, got '" + value + "'");
                }
                options.put(value.substring(0, eq), value.substring(eq + 1));
            } else {
                named.put(a.substring(2), value);
            }
        }
        String backend = named.remove("backend");
        if (backend == null) {
            throw new IllegalArgumentException("missing --backend (ucx, nixl or loopback)");
        }
        Duration duration = named.containsKey("minutes")
                ? Duration.ofSeconds(Math.round(Double.parseDouble(named.remove("minutes")) * 60))
                : Duration.ofSeconds(Long.parseLong(take(named, "seconds", "1800")));
        named.remove("seconds");
        if (duration.toSeconds() < 10) {
            throw new IllegalArgumentException("a soak needs at least 10 s, got " + duration.toSeconds() + " s");
        }
        Workload workload = new Workload(
                Integer.parseInt(take(named, "inflight", "8")),
                Integer.parseInt(take(named, "max-blocks", "4")),
                Double.parseDouble(take(named, "read-share", "0.5")),
                Duration.ofDays(1),
                Duration.ofMillis(Long.parseLong(take(named, "drain-ms", "8000"))));
        SoakSettings s = new SoakSettings(
                backend,
                take(named, "ucx-tls", "sm"),
                duration,
                Path.of(take(named, "report", "target/soak/" + backend)).toAbsolutePath().normalize(),
                Integer.parseInt(take(named, "targets", "3")),
                Integer.parseInt(take(named, "blocks", "256")),
                Long.parseLong(take(named, "block-length", "65536")),
                millis(take(named, "churn-ms", "100")),
                millis(take(named, "kill-every-ms", "15000")),
                millis(take(named, "timeout-ms", "5000")),
                millis(take(named, "settle-ms", "2000")),
                millis(take(named, "sample-ms", "2000")),
                Integer.parseInt(take(named, "verify-every", "10")),
                millis(take(named, "window-ms", "20000")),
                workload,
                Long.parseLong(take(named, "seed", "1")),
                new Bounds(SlopeBound.parse(take(named, "fd-bound", "0.25+8")),
                        SlopeBound.parse(take(named, "thread-bound", "0.25+4")),
                        SlopeBound.parse(take(named, "rss-bound-mib", "1+16")),
                        Double.parseDouble(take(named, "shm-rise-mib", "48"))),
                Map.copyOf(options));
        if (!named.isEmpty()) {
            throw new IllegalArgumentException("unknown options " + named.keySet());
        }
        if (s.targets < 1 || s.targetBlocks < workload.maxBlocksPerTransfer() || s.churnInterval.isZero()
                || s.sampleInterval.isZero() || s.verifyEvery < 1 || s.livenessWindow.isZero()) {
            throw new IllegalArgumentException("bad geometry or intervals: " + s);
        }
        return s;
    }

    private static String take(Map<String, String> named, String key, String fallback) {
        String v = named.remove(key);
        return v == null ? fallback : v;
    }

    private static Duration millis(String value) {
        long ms = Long.parseLong(value);
        if (ms < 0) {
            throw new IllegalArgumentException("a time must not be negative: " + ms + " ms");
        }
        return Duration.ofMillis(ms);
    }

    /** The backend's same-host setup. */
    SameHostProfile profile() {
        return SameHostProfile.of(backend, ucxTls);
    }

    /** The profile's transport options with {@code --opt} ones on top. */
    Map<String, String> transportOptions() {
        Map<String, String> all = new LinkedHashMap<>(profile().options());
        all.putAll(options);
        return all;
    }

    /** Local blocks the initiator needs: two slots per target, so a restarted peer's session starts on fresh blocks. */
    int initiatorBlocks() {
        return targets * 2 * workload.localBlocksPerPeer();
    }
}
