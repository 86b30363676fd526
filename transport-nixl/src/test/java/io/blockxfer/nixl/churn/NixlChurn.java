package io.blockxfer.nixl.churn;

import io.blockxfer.nixl.NixlProvider;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

/**
 * Churn of the {@code nixl} backend, for leaks: {@code peers N} adds and removes one peer N times
 * ({@code addPeer}/{@code removePeer}, a WRITE every 100th cycle); {@code transports N} opens and
 * closes a transport N times. Samples open file descriptors, threads and RSS of this process every
 * {@code N/20} cycles, prints {@code SAMPLE cycle fds threads rssKiB}, and at the end
 * {@code SLOPE fds threads rssKiB} per 1,000 cycles over the second half (least squares).
 *
 * <p><b>Thread safety:</b> a program; one thread.
 */
public final class NixlChurn {

    private NixlChurn() {
    }

    /**
     * Arguments: {@code peers|transports N}.
     *
     * @param args what to churn and how often
     * @throws IOException if /proc cannot be read
     */
    public static void main(String[] args) throws IOException {
        String what = args[0];
        int n = Integer.parseInt(args[1]);
        NixlProvider provider = new NixlProvider();
        if (!provider.availability().isAvailable()) {
            throw new IllegalStateException(provider.availability().cause());
        }
        int every = Math.max(1, n / 20);
        long[][] samples = new long[n / every + 2][];
        int count = 0;
        if (what.equals("peers")) {
            try (DataTransport a = provider.open(config("churn-a")); DataTransport b = provider.open(config("churn-b"))) {
                var d = b.localDescriptor();
                for (int i = 0; i <= n; i++) {
                    if (i % every == 0) {
                        samples[count++] = sample(i);
                    }
                    if (i == n) {
                        break;
                    }
                    a.addPeer("b", d);
                    if (i % 100 == 0) {
                        long id = a.writeBlocks("b", new int[] {0}, new int[] {1});
                        long end = System.nanoTime() + 10_000_000_000L;
                        boolean seen = false;
                        while (!seen && System.nanoTime() < end) {
                            var r = a.poll("b");
                            seen = r.doneCount() + r.failedCount() > 0 && (r.doneCount() > 0 && r.doneId(0) == id
                                    || r.failedCount() > 0 && r.failedId(0) == id);
                        }
                    }
                    a.removePeer("b");
                }
            }
        } else {
            for (int i = 0; i <= n; i++) {
                if (i % every == 0) {
                    samples[count++] = sample(i);
                }
                if (i == n) {
                    break;
                }
                provider.open(config("churn-t")).close();
            }
        }
        for (int i = 0; i < count; i++) {
            System.out.printf("SAMPLE %d %d %d %d%n", samples[i][0], samples[i][1], samples[i][2], samples[i][3]);
        }
        System.out.printf("SLOPE %.2f %.2f %.1f%n", slope(samples, count, 1), slope(samples, count, 2),
                slope(samples, count, 3));
    }

    private static TransportConfig config(String name) {
        TransportConfig.Builder b = TransportConfig.builder(RegionSpec.allocate(16, 4096)).agentName(name)
                .closeTimeout(Duration.ofSeconds(5));
        // extra transport options for experiments: -Dchurn.options=k=v,k=v
        for (String kv : System.getProperty("churn.options", "").split(",")) {
            if (!kv.isBlank()) {
                b.option(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
            }
        }
        return b.build();
    }

    /** {cycle, fds, threads, rss KiB}. */
    static long[] sample(long cycle) throws IOException {
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
    static double slope(long[][] s, int count, int col) {
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
