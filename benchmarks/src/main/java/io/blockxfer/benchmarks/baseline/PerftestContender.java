package io.blockxfer.benchmarks.baseline;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * UCX's own {@code ucx_perftest} from the same UCX build, server and client as two processes on
 * loopback, in the backend's error mode ({@code -e}, with {@code UCX_MM_ERROR_HANDLING=y}). Its
 * tests differ from the other contenders' loops, so read it as a reference, not a like-for-like
 * figure: {@code SMALL} is {@code ucp_put_lat -s 4096} (a ping-pong; reported as one transfer per
 * round trip, 10^6 / (2 x the one-way latency in us)), and {@code LARGE} is
 * {@code ucp_put_bw -s 262144} (one 256 KiB buffer put again and again with perftest's own window
 * in flight: hot in cache, unlike 64 distinct blocks). It runs a fixed number of iterations (20,000
 * and 16,384), not for a time.
 *
 * <p><b>Thread safety:</b> not thread-safe.
 */
final class PerftestContender implements Contender {

    private final Path binary;
    private final Map<String, String> env;

    PerftestContender(Path binary, Map<String, String> env) {
        this.binary = binary;
        this.env = Map.copyOf(env);
    }

    @Override
    public boolean inThisJvm() {
        return false;
    }

    @Override
    public String name() {
        return "ucx_perftest";
    }

    @Override
    public String description() {
        return "UCX's ucx_perftest -e (put_lat 4 KiB as 1/RTT; put_bw 256 KiB, one hot buffer, perftest's window)";
    }

    @Override
    public @Nullable String unavailable() {
        return Files.isExecutable(binary) ? null : "no runnable ucx_perftest at " + binary;
    }

    @Override
    public Map<BaselineCase, Double> round(List<BaselineCase> cases, double seconds) throws Exception {
        Map<BaselineCase, Double> rates = new EnumMap<>(BaselineCase.class);
        for (BaselineCase c : cases) {
            List<String> test = c == BaselineCase.SMALL ? List.of("-t", "ucp_put_lat", "-s", "4096", "-n", "20000")
                    : List.of("-t", "ucp_put_bw", "-s", Long.toString(c.blockBytes()), "-n", "16384");
            String[] f = run(test);
            // Final: iterations, latency 50%, avg, overall (us), bandwidth avg, overall (MB/s), rate avg, overall
            rates.put(c, c == BaselineCase.SMALL ? 1e6 / (2 * Double.parseDouble(f[4]))
                    : Double.parseDouble(f[6]) * 1048576 / 1e9);
        }
        return rates;
    }

    /** Runs one server/client pair; the fields of the client's {@code Final:} line. */
    private String[] run(List<String> test) throws IOException, InterruptedException {
        IOException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(20_000, 40_000);
            Process server = start(List.of("-p", Integer.toString(port)), true);
            try {
                TimeUnit.MILLISECONDS.sleep(500);
                List<String> args = new ArrayList<>(List.of("127.0.0.1", "-p", Integer.toString(port)));
                args.addAll(test);
                args.addAll(List.of("-w", "100", "-e"));
                Process client = start(args, false);
                String out = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                client.waitFor(120, TimeUnit.SECONDS);
                for (String line : out.lines().toList()) {
                    if (line.startsWith("Final:")) {
                        return line.trim().split("\\s+");
                    }
                }
                last = new IOException("ucx_perftest printed no result: " + out.lines().reduce((a, b) -> b).orElse(""));
            } finally {
                server.destroy();
                server.waitFor(10, TimeUnit.SECONDS);
            }
        }
        throw last;
    }

    private Process start(List<String> args, boolean discardOutput) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(binary.toString());
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        if (discardOutput) {
            pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        }
        pb.environment().putAll(env);
        return pb.start();
    }
}
