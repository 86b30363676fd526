package io.blockxfer.nixl.bench;

import io.blockxfer.nixl.NixlOptions;
import io.blockxfer.nixl.NixlProvider;
import io.blockxfer.nixl.internal.NixlEngine;
import io.blockxfer.transport.CompletionHandler;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.TransferEngine;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One-run benchmark of blockxfer's {@code nixl} backend against NIXL's own Python API from the same
 * wheel, with the seed NixlTransport's call sequence on both sides (prepared lists, one transfer
 * request per submit, post, state check until done, release):
 * <ol>
 *   <li>1 x 4 KiB WRITEs one after another: transfers per second;</li>
 *   <li>64 x 256 KiB WRITE batches one after another: GB/s;</li>
 *   <li>adding a peer of 20,000 blocks (load metadata + one descriptor per block + prepare): ms.</li>
 * </ol>
 * Java runs at two levels: the public {@code DataTransport} (writeBlocks + poll) and the engine
 * underneath it (the raw binding: make, post, status, release, with no bookkeeping), the closest to
 * a C-level run this pure-Java build has. Initiator and target are two agents in one process on
 * each side, so UCX copies with CMA inside the post.
 *
 * <p>Usage: {@code scripts/bench-nixl [--seconds N] [--skip-python] [--option nixl.key=value]...};
 * needs the natives
 * ({@code scripts/install-natives nixl}).
 *
 * <p><b>Thread safety:</b> a program; single-threaded.
 */
public final class NixlBench {

    private static final long SMALL = 4096;
    private static final long LARGE = 256 * 1024;
    private static final int BATCH = 64;
    private static final int PEER_BLOCKS = 20_000;
    private static final int ROUNDS = 3;

    private NixlBench() {
    }

    public static void main(String[] args) throws Exception {
        double seconds = 3;
        boolean python = true;
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--seconds" -> seconds = Double.parseDouble(args[++i]);
                case "--skip-python" -> python = false;
                case "--option" -> {
                    String kv = args[++i];
                    options.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
                }
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        NixlProvider provider = new NixlProvider();
        if (!provider.availability().isAvailable()) {
            System.err.println("nixl is unavailable: " + provider.availability().cause());
            System.exit(2);
        }
        System.out.println("blockxfer-nixl benchmark: " + provider.nativeVersion() + ", best of " + ROUNDS + " x "
                + seconds + " s per case, " + Runtime.getRuntime().availableProcessors() + " CPUs, options "
                + options);
        Map<String, Double> py = python ? runPython(seconds) : Map.of();
        Map<String, Double> java = new LinkedHashMap<>();
        runJava(provider, options, seconds, java, "");
        Map<String, String> spinning = new LinkedHashMap<>(options);
        spinning.put(NixlOptions.PROGRESS_DELAY_MICROS, "0");
        runJava(provider, spinning, seconds, java, " delay0");

        System.out.println();
        System.out.printf(Locale.ROOT, "%-62s %14s %14s %8s%n", "case", "blockxfer", "Python NIXL", "ratio");
        row("1 x 4 KiB WRITE, transfers/s (DataTransport)", java.get("small"), py.get("small_xfers_per_s"), true);
        row("1 x 4 KiB WRITE, transfers/s (engine, raw binding)", java.get("small.engine"),
                py.get("small_xfers_per_s"), true);
        row("1 x 4 KiB WRITE, transfers/s (DataTransport, progress delay 0)", java.get("small delay0"),
                py.get("small_xfers_per_s"), true);
        row("64 x 256 KiB WRITE, GB/s (DataTransport)", java.get("batch"), py.get("batch_gb_per_s"), true);
        row("64 x 256 KiB WRITE, GB/s (engine, raw binding)", java.get("batch.engine"), py.get("batch_gb_per_s"),
                true);
        row("64 x 256 KiB WRITE, GB/s (DataTransport, progress delay 0)", java.get("batch delay0"),
                py.get("batch_gb_per_s"), true);
        row("add a peer of 20,000 blocks, ms (median)", java.get("addPeer"), py.get("add_peer_20000_ms"), false);
        System.out.printf(Locale.ROOT, "%-62s %14.3f %14s %8.3f%n", "DataTransport / engine, 64 x 256 KiB",
                java.get("batch"), "", java.get("batch") / java.get("batch.engine"));
        System.out.printf(Locale.ROOT, "%-62s %14.0f %14s %8.3f%n", "DataTransport / engine, 1 x 4 KiB",
                java.get("small"), "", java.get("small") / java.get("small.engine"));
        System.out.println("(ratio: blockxfer / Python for rates, Python / blockxfer for times; higher is better)");
    }

    private static void row(String name, Double java, Double python, boolean higherIsBetter) {
        String p = python == null ? "-" : String.format(Locale.ROOT, "%.3f", python);
        String ratio = python == null || java == null ? "-" : String.format(Locale.ROOT, "%.2f",
                higherIsBetter ? java / python : python / java);
        System.out.printf(Locale.ROOT, "%-62s %14.3f %14s %8s%n", name, java, p, ratio);
    }

    // ------------------------------------------------------------------ Java

    private static TransportConfig config(String name, int blocks, long blockLength, Map<String, String> options) {
        return TransportConfig.builder(RegionSpec.allocate(blocks, blockLength)).agentName(name).options(options)
                .transferTimeout(Duration.ofSeconds(30)).build();
    }

    private static void runJava(NixlProvider provider, Map<String, String> options, double seconds,
            Map<String, Double> out, String suffix) {
        int[] all = new int[BATCH];
        Arrays.setAll(all, i -> i);
        boolean engine = suffix.isEmpty();
        for (long blockLength : new long[] {SMALL, LARGE}) {
            int[] blocks = blockLength == SMALL ? new int[] {0} : all;
            String key = blockLength == SMALL ? "small" : "batch";
            double scale = blockLength == SMALL ? 1 : BATCH * LARGE / 1e9;
            NixlEngine ea = engine ? new NixlEngine(NixlProvider.NAME, config("bench-ea", BATCH, blockLength, options))
                    : null;
            NixlEngine eb = engine ? new NixlEngine(NixlProvider.NAME, config("bench-eb", BATCH, blockLength, options))
                    : null;
            try (DataTransport a = provider.open(config("bench-a", BATCH, blockLength, options));
                    DataTransport b = provider.open(config("bench-b", BATCH, blockLength, options))) {
                a.addPeer("b", b.localDescriptor());
                Object peer = engine ? ea.connect("b", PeerDescriptor.of(NixlProvider.NAME, "", eb.region(),
                        eb.agentMetadata())) : null;
                double api = 0;
                double raw = 0;
                // rounds alternate between the two levels, so that noise on this shared machine hits both
                for (int round = 0; round < ROUNDS; round++) {
                    api = Math.max(api, measureApiOnce(a, "b", blocks, seconds));
                    if (engine) {
                        raw = Math.max(raw, measureEngineOnce(ea, peer, blocks, seconds));
                    }
                }
                out.put(key + suffix, api * scale);
                if (engine) {
                    out.put(key + ".engine", raw * scale);
                    ea.disconnect(peer);
                }
            } finally {
                if (engine) {
                    ea.close(false);
                    eb.close(false);
                }
            }
        }
        if (!engine) {
            return;
        }
        try (DataTransport a = provider.open(config("bench-peer-a", 4, SMALL, options));
                DataTransport c = provider.open(config("bench-peer-c", PEER_BLOCKS, SMALL, options))) {
            PeerDescriptor d = c.localDescriptor();
            double[] ms = new double[7];
            for (int i = 0; i < ms.length; i++) {
                long t0 = System.nanoTime();
                a.addPeer("c", d);
                ms[i] = (System.nanoTime() - t0) / 1e6;
                a.removePeer("c");
            }
            double[] warm = Arrays.copyOfRange(ms, 1, ms.length);
            Arrays.sort(warm);
            out.put("addPeer", warm[warm.length / 2]);
            System.out.printf(Locale.ROOT, "java add-peer of %d blocks, ms: %s%n", PEER_BLOCKS, Arrays.toString(ms));
        }
    }

    /** Transfers per second, one at a time: writeBlocks, then poll until it is reported. */
    private static double measureApiOnce(DataTransport t, String peer, int[] blocks, double seconds) {
        final long[] seen = {-1};
        final boolean[] failed = {false};
        CompletionHandler handler = (id, ok) -> {
            seen[0] = id;
            failed[0] |= !ok;
        };
        long warmEnd = System.nanoTime() + (long) (Math.min(0.5, seconds / 4) * 1e9);
        long n = 0;
        long start = 0;
        long end = Long.MAX_VALUE;
        boolean measuring = false;
        while (true) {
            long id = t.writeBlocks(peer, blocks, blocks);
            while (seen[0] != id) {
                t.poll(peer, handler);
            }
            if (failed[0]) {
                throw new IllegalStateException("transfer " + id + " failed");
            }
            if (measuring) {
                n++;
                if ((n & 15) == 0 && System.nanoTime() > end) {
                    return n / ((System.nanoTime() - start) / 1e9);
                }
            } else if (System.nanoTime() > warmEnd) {
                measuring = true;
                start = System.nanoTime();
                end = start + (long) (seconds * 1e9);
            }
        }
    }

    /** The same loop on the engine: submit, status until terminal, release. */
    private static double measureEngineOnce(NixlEngine e, Object peer, int[] blocks, double seconds) {
        long warmEnd = System.nanoTime() + (long) (Math.min(0.5, seconds / 4) * 1e9);
        long n = 0;
        long start = 0;
        long end = Long.MAX_VALUE;
        boolean measuring = false;
        while (true) {
            Object x = e.submit(0, peer, TransferOp.WRITE, blocks, blocks);
            int s;
            while ((s = e.status(x)) == TransferEngine.PENDING) {
                Thread.onSpinWait();
            }
            e.release(x);
            if (s != TransferEngine.DONE) {
                throw new IllegalStateException("engine transfer failed");
            }
            if (measuring) {
                n++;
                if ((n & 15) == 0 && System.nanoTime() > end) {
                    return n / ((System.nanoTime() - start) / 1e9);
                }
            } else if (System.nanoTime() > warmEnd) {
                measuring = true;
                start = System.nanoTime();
                end = start + (long) (seconds * 1e9);
            }
        }
    }

    // ------------------------------------------------------------------ Python

    private static Map<String, Double> runPython(double seconds) throws IOException, InterruptedException {
        String natives = System.getProperty("blockxfer.natives.dir");
        if (natives == null) {
            throw new IllegalStateException("set -Dblockxfer.natives.dir (scripts/bench-nixl does)");
        }
        Path script = Files.createTempFile("nixl_python_bench", ".py");
        try (InputStream in = NixlBench.class.getResourceAsStream("/io/blockxfer/nixl/nixl_python_bench.py")) {
            Files.copy(in, script, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        List<String> cmd = new ArrayList<>(List.of("python3", script.toString(), Double.toString(seconds)));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("PYTHONPATH", Path.of(natives, "nixl") + java.io.File.pathSeparator
                + Path.of(natives, "python"));
        Process p = pb.start();
        Map<String, Double> results = new LinkedHashMap<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith("RESULT ")) {
                    String[] f = line.split(" ");
                    results.put(f[1], Double.parseDouble(f[2]));
                }
            }
        }
        int rc = p.waitFor();
        Files.deleteIfExists(script);
        if (rc != 0) {
            throw new IllegalStateException("the Python benchmark failed with exit status " + rc);
        }
        System.out.println("python: " + results);
        return results;
    }
}
