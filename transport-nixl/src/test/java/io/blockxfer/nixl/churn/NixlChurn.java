package io.blockxfer.nixl.churn;

import io.blockxfer.nixl.NixlProvider;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.Notification;
import io.blockxfer.transport.NotificationStats;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * Churn of the {@code nixl} backend, for leaks of file descriptors, threads and memory.
 *
 * <ul>
 *   <li>{@code peers N}: adds and removes one live peer N times ({@code addPeer}/{@code removePeer},
 *       a WRITE every 100th cycle);</li>
 *   <li>{@code restarts N}: opens a target, adds it, writes to it, removes it and closes it, N times
 *       (a peer that restarts: a new NIXL incarnation under the same agent name each time);</li>
 *   <li>{@code transports N}: opens and closes a transport N times;</li>
 *   <li>{@code notifications N}: sends N messages of 1 KiB ({@code sendNotification}) to a target
 *       that nobody polls (its queue holds 64, the rest are dropped and counted), waiting every
 *       1,000 until the target's engine has taken them all out of NIXL; fails if it has not
 *       within 10 s.</li>
 * </ul>
 * Samples open file descriptors, threads and RSS of this process 40 times over the run and prints
 * each as {@code SAMPLE cycle fds threads rssKiB} when taken, then {@code SLOPE fds threads rssKiB}
 * per 1,000 cycles over the second half (least squares). Run it with a fixed, pre-touched heap
 * ({@code -Xms -Xmx -XX:+AlwaysPreTouch}, as {@code scripts/nixl-churn} does) so that RSS shows
 * native memory and not the Java heap growing to its size. {@link Run} is the same loop for tests.
 *
 * <p><b>Thread safety:</b> a program; one thread.
 */
public final class NixlChurn {

    /** The queue of the target of {@code notifications}. */
    static final int QUIET_QUEUE = 64;

    private NixlChurn() {
    }

    /**
     * Arguments: {@code peers|restarts|transports|notifications N [W]}: {@code W} cycles of warm-up first,
     * not sampled (none by default); options with {@code -Dchurn.options=k=v,k=v}.
     *
     * @param args what to churn and how often
     * @throws IOException if /proc cannot be read
     */
    @SuppressWarnings("ClosingStandardOutputStreams") // Run prints its samples to System.out, never closes it
    public static void main(String[] args) throws IOException {
        NixlProvider provider = new NixlProvider();
        if (!provider.availability().isAvailable()) {
            throw new IllegalStateException(provider.availability().cause());
        }
        long[][] samples;
        try (Run run = new Run(provider, args[0], System.out)) {
            if (args.length > 2) {
                run.cycles(Integer.parseInt(args[2]), 0);
            }
            samples = run.cycles(Integer.parseInt(args[1]), 40);
        }
        System.out.printf("SLOPE %.2f %.2f %.1f%n", slope(samples, 1), slope(samples, 2), slope(samples, 3));
    }

    /** One churn loop over an opened provider; {@link #close()} ends it. Not thread-safe. */
    public static final class Run implements AutoCloseable {
        private final NixlProvider provider;
        private final String what;
        private final PrintStream out;
        private final List<DataTransport> open = new ArrayList<>();
        private DataTransport initiator;
        private PeerDescriptor target;
        private DataTransport quiet;
        private final byte[] message = new byte[Notification.MAX_PAYLOAD_BYTES];
        private long done;

        /**
         * @param what {@code peers}, {@code restarts}, {@code transports} or {@code notifications}
         * @param out where samples are printed as taken, or null
         */
        public Run(NixlProvider provider, String what, PrintStream out) {
            this.provider = provider;
            this.what = what;
            this.out = out;
            switch (what) {
                case "peers" -> {
                    initiator = open(config("churn-a"));
                    target = open(config("churn-b")).localDescriptor();
                }
                case "restarts" -> initiator = open(config("churn-a"));
                case "transports" -> {
                    // nothing stays open
                }
                case "notifications" -> {
                    initiator = open(config("churn-a"));
                    quiet = open(TransportConfig.builder(RegionSpec.allocate(16, 4096)).agentName("churn-quiet")
                            .notificationQueueCapacity(QUIET_QUEUE).closeTimeout(Duration.ofSeconds(5)).build());
                    initiator.addPeer("q", quiet.localDescriptor());
                }
                default -> throw new IllegalArgumentException("churn what? peers, restarts, transports or"
                        + " notifications: " + what);
            }
        }

        private DataTransport open(TransportConfig config) {
            DataTransport t = provider.open(config);
            open.add(t);
            return t;
        }

        /**
         * Runs {@code n} more cycles, sampling {@code samples} times evenly (the first before the
         * first cycle, the last after the last).
         *
         * @return {cycle, fds, threads, rss KiB} per sample; cycles count from this run's start
         */
        public long[][] cycles(int n, int samples) throws IOException {
            if (samples == 0) {
                for (int i = 0; i < n; i++) {
                    cycle();
                    done++;
                }
                return new long[0][];
            }
            int every = Math.max(1, n / samples);
            List<long[]> taken = new ArrayList<>();
            for (int i = 0; i <= n; i++) {
                if (i % every == 0 || i == n) {
                    long[] s = sample(done);
                    taken.add(s);
                    if (out != null) {
                        out.printf("SAMPLE %d %d %d %d%n", s[0], s[1], s[2], s[3]);
                        out.flush();
                    }
                }
                if (i == n) {
                    break;
                }
                cycle();
                done++;
            }
            return taken.toArray(new long[0][]);
        }

        private void cycle() {
            switch (what) {
                case "peers" -> {
                    initiator.addPeer("b", target);
                    if (done % 100 == 0) {
                        write(initiator, "b");
                    }
                    initiator.removePeer("b");
                }
                case "restarts" -> {
                    try (DataTransport b = provider.open(config("churn-b"))) {
                        initiator.addPeer("b", b.localDescriptor());
                        write(initiator, "b");
                        initiator.removePeer("b");
                    }
                }
                case "notifications" -> {
                    message[0] = (byte) done;
                    if (!initiator.sendNotification("q", message)) {
                        throw new IllegalStateException("message " + done + " was not handed to NIXL");
                    }
                    if ((done + 1) % 1_000 == 0) {
                        awaitTaken(done + 1);
                    }
                }
                default -> provider.open(config("churn-t")).close();
            }
        }

        /** Waits until the quiet target's engine took {@code sent} messages out of NIXL (nobody polls it). */
        private void awaitTaken(long sent) {
            long end = System.nanoTime() + 10_000_000_000L;
            while (taken() < sent) {
                if (System.nanoTime() > end) {
                    throw new IllegalStateException("the target took " + taken() + " of " + sent + " messages out of"
                            + " NIXL in 10 s while nobody polled it: " + quiet.notificationStats());
                }
                LockSupport.parkNanos(100_000);
            }
        }

        private long taken() {
            NotificationStats s = quiet.notificationStats();
            return s.received() + s.dropped() + s.refused();
        }

        /** The quiet target's notification counts ({@code notifications} only). */
        public NotificationStats quietStats() {
            return quiet.notificationStats();
        }

        @Override
        public void close() {
            for (DataTransport t : open) {
                t.close();
            }
            open.clear();
        }
    }

    /** One WRITE to {@code peer}, polled until it is reported (10 s at most). */
    private static void write(DataTransport a, String peer) {
        long id = a.writeBlocks(peer, new int[] {0}, new int[] {1});
        long end = System.nanoTime() + 10_000_000_000L;
        boolean seen = false;
        while (!seen && System.nanoTime() < end) {
            var r = a.poll(peer);
            seen = r.doneCount() + r.failedCount() > 0 && ((r.doneCount() > 0 && r.doneId(0) == id)
                    || (r.failedCount() > 0 && r.failedId(0) == id));
        }
    }

    private static TransportConfig config(String name) {
        TransportConfig.Builder b = TransportConfig.builder(RegionSpec.allocate(16, 4096)).agentName(name)
                .closeTimeout(Duration.ofSeconds(5));
        // extra transport options for experiments: -Dchurn.options=k=v,k=v
        for (String kv : System.getProperty("churn.options", "").split(",", -1)) {
            if (!kv.isBlank()) {
                b.option(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
            }
        }
        return b.build();
    }

    /** {@code malloc_trim(0)} of glibc, for {@code -Dchurn.trim=true}; null when not asked for. */
    private static final MethodHandle MALLOC_TRIM = Boolean.getBoolean("churn.trim") ? mallocTrim() : null;

    @SuppressWarnings("restricted")
    private static MethodHandle mallocTrim() {
        Linker linker = Linker.nativeLinker();
        return linker.downcallHandle(linker.defaultLookup().find("malloc_trim").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
    }

    /**
     * {cycle, fds, threads, rss KiB} of this process now. With {@code -Dchurn.trim=true} glibc's
     * {@code malloc_trim(0)} runs first, so that memory freed but kept by the allocator (its
     * fragmentation) does not count: what stays is memory still allocated.
     */
    public static long[] sample(long cycle) throws IOException {
        if (MALLOC_TRIM != null) {
            try {
                int released = (int) MALLOC_TRIM.invokeExact(0L);
                assert released >= 0;
            } catch (Throwable t) {
                throw new IllegalStateException("malloc_trim failed", t);
            }
        }
        long fds;
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            fds = s.count();
        }
        long threads = 0;
        long rss = 0;
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Threads:")) {
                threads = Long.parseLong(line.substring(8).strip());
            } else if (line.startsWith("VmRSS:")) {
                rss = Long.parseLong(line.substring(6).replace("kB", "").strip());
            }
        }
        return new long[] {cycle, fds, threads, rss};
    }

    /** Least-squares slope of column {@code col} per 1,000 cycles over the second half of the samples. */
    public static double slope(long[][] s, int col) {
        int count = s.length;
        int from = count / 2;
        int k = count - from;
        if (k < 2) {
            return 0;
        }
        double mx = 0;
        double my = 0;
        for (int i = from; i < count; i++) {
            mx += s[i][0];
            my += s[i][col];
        }
        mx /= k;
        my /= k;
        double num = 0;
        double den = 0;
        for (int i = from; i < count; i++) {
            num += (s[i][0] - mx) * (s[i][col] - my);
            den += (s[i][0] - mx) * (s[i][0] - mx);
        }
        return den == 0 ? 0 : num / den * 1000;
    }
}
