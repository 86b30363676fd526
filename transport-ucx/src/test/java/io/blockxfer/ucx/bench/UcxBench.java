package io.blockxfer.ucx.bench;

import io.blockxfer.tck.InJvmHarness;
import io.blockxfer.tck.TargetPeer;
import io.blockxfer.tck.TwoProcessHarness;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.ucx.UcxProvider;
import io.blockxfer.ucx.internal.UcxLibrary;
import io.blockxfer.ucx.internal.UcxSettings;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpMemMapParams;
import org.openucx.jucx.ucp.UcpMemory;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpRemoteKey;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

/**
 * One benchmark run, cross-process on this host: for each block size, batches of 64 distinct blocks
 * moved by (1) raw JUCX, 64 implicit puts and one flush into a target JVM, no blockxfer; (2) the
 * blockxfer UCX backend, one {@code writeBlocks} of the same 64 block pairs and polls until done,
 * into a {@code TargetProcess} JVM; (3) the same with contiguous pairs, which blockxfer coalesces
 * into one put; (4) the same with {@code bench.window} transfers kept in flight (default 4), as an
 * asynchronous caller would; (5) Java {@code MemorySegment.copy} of the same 64 blocks in this
 * process, the memcpy ceiling. Block pairs map block {@code b} to remote block {@code (37b + 11) mod 64}, so no
 * two neighbours coalesce. Both UCX sides use the backend's settings (peer error mode, shared memory
 * error handling) and UCX-allocated memory. Prints a markdown table of median GB/s (10^9 B/s).
 *
 * <p>System properties: {@code bench.sizes} (bytes, comma-separated; default 65536,262144,2097152),
 * {@code bench.seconds} per measurement (default 2), {@code bench.runs} (default 3).
 *
 * <p><b>Thread safety:</b> a program.
 */
public final class UcxBench {

    private static final int BATCH = 64;
    private static final int WINDOW = Integer.getInteger("bench.window", 4);

    private UcxBench() {
    }

    /** {@code UcxBench} runs the benchmark; {@code UcxBench raw-target BYTES} is its raw JUCX target. */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("raw-target")) {
            RawTarget.run(Long.parseLong(args[1]));
            return;
        }
        UcxLibrary.ensureLoaded();
        long[] sizes = Arrays.stream(System.getProperty("bench.sizes", "65536,262144,2097152").split(","))
                .mapToLong(s -> Long.parseLong(s.trim())).toArray();
        double seconds = Double.parseDouble(System.getProperty("bench.seconds", "2"));
        int runs = Integer.getInteger("bench.runs", 3);
        int[] perm = new int[BATCH];
        int[] identity = new int[BATCH];
        for (int b = 0; b < BATCH; b++) {
            perm[b] = (37 * b + 11) % BATCH;
            identity[b] = b;
        }
        System.out.printf(Locale.ROOT, "UCX %s, %d cores, %d runs x %.1f s per cell, median GB/s (min-max)%n",
                UcxLibrary.version(), Runtime.getRuntime().availableProcessors(), runs, seconds);
        List<String> rows = new ArrayList<>();
        for (long size : sizes) {
            long region = size * BATCH;
            double[] memcpy = new double[runs];
            double[] raw = new double[runs];
            double[] bx = new double[runs];
            double[] bxContiguous = new double[runs];
            double[] bxWindow = new double[runs];
            try (Arena arena = Arena.ofShared();
                    RawInitiator rawInit = RawInitiator.connect(region);
                    BlockxferPair pair = BlockxferPair.open(size)) {
                MemorySegment src = arena.allocate(region, 4096);
                MemorySegment dst = arena.allocate(region, 4096);
                src.fill((byte) 1);
                dst.fill((byte) 2);
                double warm = Math.min(1.0, seconds);
                memcpy(src, dst, size, perm, warm);
                rawInit.measure(size, perm, warm);
                pair.measure(identity, perm, warm, 1);
                for (int r = 0; r < runs; r++) {
                    memcpy[r] = memcpy(src, dst, size, perm, seconds);
                    raw[r] = rawInit.measure(size, perm, seconds);
                    bx[r] = pair.measure(identity, perm, seconds, 1);
                    bxWindow[r] = pair.measure(identity, perm, seconds, WINDOW);
                    bxContiguous[r] = pair.measure(identity, identity, seconds, 1);
                }
            }
            double mRaw = median(raw);
            double mBx = median(bx);
            double mCopy = median(memcpy);
            rows.add(String.format(Locale.ROOT, "| %s | %s | %s | %s | %.2f | %.2f | %s | %s |", human(size),
                    cell(memcpy), cell(raw), cell(bx), mBx / mRaw, mBx / mCopy, cell(bxWindow), cell(bxContiguous)));
            System.out.println("done " + human(size));
        }
        System.out.println();
        System.out.println("| block | memcpy (Java) | raw JUCX put+flush | blockxfer-ucx | blockxfer / raw"
                + " | blockxfer / memcpy | blockxfer, " + WINDOW + " in flight | blockxfer, contiguous (1 put) |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        rows.forEach(System.out::println);
    }

    private static double memcpy(MemorySegment src, MemorySegment dst, long size, int[] perm, double seconds) {
        long bytes = 0;
        long start = System.nanoTime();
        long end = start + (long) (seconds * 1e9);
        long now;
        do {
            for (int b = 0; b < BATCH; b++) {
                MemorySegment.copy(src, b * size, dst, perm[b] * size, size);
            }
            bytes += BATCH * size;
        } while ((now = System.nanoTime()) < end);
        return bytes / ((now - start) / 1e9) / 1e9;
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }

    private static String cell(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return String.format(Locale.ROOT, "%.1f (%.1f-%.1f)", median(v), s[0], s[s.length - 1]);
    }

    private static String human(long size) {
        return size >= 1 << 20 && size % (1 << 20) == 0 ? (size >> 20) + " MiB" : (size >> 10) + " KiB";
    }

    /** The UCX settings of the backend (peer error mode needs them for shared memory). */
    static UcpParams params() {
        UcpParams p = new UcpParams().requestRmaFeature().requestWakeupFeature();
        Map<String, String> config = UcxSettings.resolve(Map.of()).ucxConfig();
        config.forEach(p::setConfig);
        return p;
    }

    /** The blockxfer side: a UCX transport here, a TargetProcess there. */
    private static final class BlockxferPair implements AutoCloseable {
        private final DataTransport initiator;
        private final TargetPeer target;

        private BlockxferPair(DataTransport initiator, TargetPeer target) {
            this.initiator = initiator;
            this.target = target;
        }

        static BlockxferPair open(long size) {
            TransportConfig config = TransportConfig.builder(RegionSpec.allocate(BATCH, size)).build();
            TwoProcessHarness harness = TwoProcessHarness.of(InJvmHarness.of(UcxProvider.NAME));
            DataTransport initiator = new UcxProvider().open(config);
            TargetPeer target = harness.openTarget(config);
            initiator.addPeer("target", target.descriptor());
            return new BlockxferPair(initiator, target);
        }

        /** Keeps {@code window} transfers in flight; each completion is one batch moved. */
        double measure(int[] local, int[] remote, double seconds, int window) {
            long bytes = 0;
            long size = initiator.region().blockLength();
            long start = System.nanoTime();
            long end = start + (long) (seconds * 1e9);
            long now;
            int inFlight = 0;
            long idleSince = 0;
            do {
                while (inFlight < window) {
                    initiator.writeBlocks("target", local, remote);
                    inFlight++;
                }
                PollResult r = initiator.poll("target");
                if (r.failedCount() > 0) {
                    throw new IllegalStateException("a blockxfer transfer failed");
                }
                if (r.doneCount() > 0) {
                    idleSince = 0;
                } else if (idleSince == 0) {
                    idleSince = System.nanoTime();
                } else if (System.nanoTime() - idleSince > 50_000) {
                    LockSupport.parkNanos(20_000); // leave the core to the progress thread on a small host
                } else {
                    Thread.onSpinWait();
                }
                inFlight -= r.doneCount();
                bytes += r.doneCount() * BATCH * size;
            } while ((now = System.nanoTime()) < end);
            while (inFlight > 0) {
                PollResult r = initiator.poll("target");
                inFlight -= r.doneCount() + r.failedCount();
            }
            return bytes / ((now - start) / 1e9) / 1e9;
        }

        @Override
        public void close() {
            initiator.close();
            target.close();
        }
    }

    /** Raw JUCX: a worker, an endpoint and a remote key of a {@link RawTarget} child. */
    private static final class RawInitiator implements AutoCloseable {
        private final Process child;
        private final UcpContext context;
        private final UcpWorker worker;
        private final UcpEndpoint endpoint;
        private final UcpRemoteKey rkey;
        private final UcpMemory source;
        private final long remoteAddress;
        private final AtomicInteger flushed = new AtomicInteger();
        private final UcxCallback onFlush = new UcxCallback() {
            @Override
            public void onSuccess(UcpRequest request) {
                flushed.set(1);
            }

            @Override
            public void onError(int status, String message) {
                flushed.set(2);
            }
        };

        private RawInitiator(Process child, UcpContext context, UcpWorker worker, UcpEndpoint endpoint,
                UcpRemoteKey rkey, UcpMemory source, long remoteAddress) {
            this.child = child;
            this.context = context;
            this.worker = worker;
            this.endpoint = endpoint;
            this.rkey = rkey;
            this.source = source;
            this.remoteAddress = remoteAddress;
        }

        @SuppressWarnings("restricted")
        static RawInitiator connect(long region) throws Exception {
            List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.add("--enable-native-access=ALL-UNNAMED");
            System.getProperties().forEach((k, v) -> {
                if (String.valueOf(k).startsWith("blockxfer.")) {
                    cmd.add("-D" + k + "=" + v);
                }
            });
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path") + File.pathSeparator,
                    UcxBench.class.getName(), "raw-target", Long.toString(region)));
            Process child = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String ready = in.readLine();
            if (ready == null || !ready.startsWith("READY ")) {
                child.destroyForcibly();
                throw new IllegalStateException("raw target failed to start: " + ready);
            }
            String[] f = ready.split(" ");
            UcpContext context = new UcpContext(params());
            UcpWorker worker = context.newWorker(new UcpWorkerParams());
            UcpEndpoint ep = worker.newEndpoint(new UcpEndpointParams()
                    .setUcpAddress(direct(Base64.getDecoder().decode(f[1])))
                    .setPeerErrorHandlingMode()
                    .setErrorHandler((e, status, message) -> System.err.println("raw endpoint error " + status)));
            UcpRemoteKey rkey = ep.unpackRemoteKey(direct(Base64.getDecoder().decode(f[2])));
            UcpMemory source = context.memoryMap(new UcpMemMapParams().allocate().setLength(region));
            MemorySegment.ofAddress(source.getAddress()).reinterpret(region).fill((byte) 3);
            return new RawInitiator(child, context, worker, ep, rkey, source, Long.parseLong(f[3]));
        }

        private static ByteBuffer direct(byte[] b) {
            return ByteBuffer.allocateDirect(b.length).put(b).flip();
        }

        double measure(long size, int[] perm, double seconds) throws Exception {
            long src = source.getAddress();
            long bytes = 0;
            long start = System.nanoTime();
            long end = start + (long) (seconds * 1e9);
            long now;
            do {
                for (int b = 0; b < BATCH; b++) {
                    endpoint.putNonBlockingImplicit(src + b * size, size, remoteAddress + perm[b] * size, rkey);
                }
                flushed.set(0);
                endpoint.flushNonBlocking(onFlush);
                while (flushed.get() == 0) {
                    worker.progress();
                }
                if (flushed.get() != 1) {
                    throw new IllegalStateException("a raw flush failed");
                }
                bytes += BATCH * size;
            } while ((now = System.nanoTime()) < end);
            return bytes / ((now - start) / 1e9) / 1e9;
        }

        @Override
        public void close() throws java.io.IOException {
            rkey.close();
            UcpRequest close = endpoint.closeNonBlockingFlush();
            long deadline = System.nanoTime() + 2_000_000_000L;
            try {
                while (!close.isCompleted() && System.nanoTime() < deadline) {
                    worker.progress();
                }
            } catch (Exception e) {
                throw new java.io.IOException("closing the raw endpoint failed", e);
            }
            source.deregister();
            worker.close();
            context.close();
            child.getOutputStream().close();
            try {
                child.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The raw JUCX target: maps UCX-allocated memory, publishes it, progresses until stdin closes. */
    private static final class RawTarget {
        static void run(long region) throws Exception {
            PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true,
                    StandardCharsets.UTF_8);
            UcxLibrary.ensureLoaded();
            UcpContext context = new UcpContext(params());
            UcpWorker worker = context.newWorker(new UcpWorkerParams());
            UcpMemory memory = context.memoryMap(new UcpMemMapParams().allocate().setLength(region));
            ByteBuffer address = worker.getAddress();
            ByteBuffer rkey = memory.getRemoteKeyBuffer();
            byte[] a = new byte[address.remaining()];
            address.get(a);
            byte[] k = new byte[rkey.remaining()];
            rkey.get(k);
            Thread watcher = Thread.ofPlatform().daemon().start(() -> {
                try {
                    while (System.in.read() >= 0) {
                        // wait for the parent to close our stdin
                    }
                } catch (java.io.IOException ignored) {
                    // parent gone
                }
                System.exit(0);
            });
            out.println("READY " + Base64.getEncoder().encodeToString(a) + " " + Base64.getEncoder().encodeToString(k)
                    + " " + memory.getAddress());
            while (watcher.isAlive()) {
                if (worker.progress() == 0) {
                    worker.waitForEvents();
                }
            }
        }
    }
}
