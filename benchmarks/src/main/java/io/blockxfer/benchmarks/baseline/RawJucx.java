package io.blockxfer.benchmarks.baseline;

import io.blockxfer.ucx.internal.UcxLibrary;
import io.blockxfer.ucx.internal.UcxSettings;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
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
 * Raw JUCX, no blockxfer: the floor under the UCX backend. The initiator here puts each block of a
 * transfer with {@code putNonBlockingImplicit} and ends the transfer with one
 * {@code flushNonBlocking}, progressing its worker until the flush completes; the target is a child
 * JVM that maps a UCX-allocated region and progresses its worker. Both use the UCX backend's own
 * settings (peer error mode, shared-memory error handling, keepalive) and UCX-allocated memory, as
 * the backend does.
 *
 * <p><b>Thread safety:</b> not thread-safe; one thread per side.
 */
final class RawJucx implements Contender {

    @Override
    public String name() {
        return "raw JUCX";
    }

    @Override
    public String description() {
        return "JUCX implicit puts + one flush per transfer, progressed by the caller; target in a child JVM";
    }

    @Override
    public @Nullable String unavailable() {
        var a = UcxLibrary.availability();
        return a.isAvailable() ? null : a.cause();
    }

    private static UcpParams params() {
        UcpParams p = new UcpParams().requestRmaFeature().requestWakeupFeature();
        UcxSettings.resolve(Map.of()).ucxConfig().forEach(p::setConfig);
        return p;
    }

    @Override
    public Map<BaselineCase, Double> round(List<BaselineCase> cases, double seconds) throws Exception {
        UcxLibrary.ensureLoaded();
        Map<BaselineCase, Double> rates = new EnumMap<>(BaselineCase.class);
        for (BaselineCase c : cases) {
            long bytes = c.regionBlocks() * c.blockBytes();
            try (TargetChild.Child target = TargetChild.Child.start(List.of("jucx", Long.toString(bytes)));
                    UcpContext context = new UcpContext(params());
                    UcpWorker worker = context.newWorker(new UcpWorkerParams())) {
                String[] f = target.ready();
                UcpEndpoint ep = worker.newEndpoint(new UcpEndpointParams()
                        .setUcpAddress(direct(Base64.getDecoder().decode(f[0])))
                        .setPeerErrorHandlingMode()
                        .setErrorHandler((e, status, message) -> System.err.println("raw JUCX endpoint error "
                                + status + ": " + message)));
                UcpRemoteKey rkey = ep.unpackRemoteKey(direct(Base64.getDecoder().decode(f[1])));
                UcpMemory source = context.memoryMap(new UcpMemMapParams().allocate().setLength(bytes));
                try {
                    @SuppressWarnings("restricted")
                    MemorySegment src = MemorySegment.ofAddress(source.getAddress()).reinterpret(bytes);
                    src.fill((byte) 1);
                    rates.put(c, OneInFlight.rate(c, new Puts(c, worker, ep, rkey, source.getAddress(),
                            Long.parseLong(f[2])), seconds));
                } finally {
                    rkey.close();
                    UcpRequest closing = ep.closeNonBlockingFlush();
                    long deadline = System.nanoTime() + 2_000_000_000L;
                    while (!closing.isCompleted() && System.nanoTime() < deadline) {
                        worker.progress();
                    }
                    source.deregister();
                }
            }
        }
        return rates;
    }

    private static ByteBuffer direct(byte[] b) {
        return ByteBuffer.allocateDirect(b.length).put(b).flip();
    }

    /** One transfer: a put per block, then one flush, progressed until it completes. */
    private static final class Puts implements OneInFlight.Transfer {
        private final UcpWorker worker;
        private final UcpEndpoint ep;
        private final UcpRemoteKey rkey;
        private final long local;
        private final long remote;
        private final long len;
        private final int[][] localIdx;
        private final int[][] remoteIdx;
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

        Puts(BaselineCase c, UcpWorker worker, UcpEndpoint ep, UcpRemoteKey rkey, long local, long remote) {
            this.worker = worker;
            this.ep = ep;
            this.rkey = rkey;
            this.local = local;
            this.remote = remote;
            this.len = c.blockBytes();
            this.localIdx = new int[c.slots()][];
            this.remoteIdx = new int[c.slots()][];
            for (int s = 0; s < c.slots(); s++) {
                localIdx[s] = c.local(s);
                remoteIdx[s] = c.remote(s);
            }
        }

        @Override
        public void run(int slot) throws Exception {
            int[] l = localIdx[slot];
            int[] r = remoteIdx[slot];
            for (int i = 0; i < l.length; i++) {
                ep.putNonBlockingImplicit(local + l[i] * len, len, remote + r[i] * len, rkey);
            }
            flushed.set(0);
            ep.flushNonBlocking(onFlush);
            while (flushed.get() == 0) {
                worker.progress();
            }
            if (flushed.get() != 1) {
                throw new IllegalStateException("a raw JUCX flush failed");
            }
        }
    }

    /**
     * The target side, in a {@link TargetChild}: maps a UCX-allocated region, prints
     * {@code READY <worker address> <rkey> <base>}, and progresses its worker (waiting for events
     * when idle) until {@code watcher} ends.
     */
    static void serveTarget(long bytes, PrintStream out, Thread watcher) throws Exception {
        UcxLibrary.ensureLoaded();
        try (UcpContext context = new UcpContext(params());
                UcpWorker worker = context.newWorker(new UcpWorkerParams())) {
            UcpMemory memory = context.memoryMap(new UcpMemMapParams().allocate().setLength(bytes));
            ByteBuffer address = worker.getAddress();
            ByteBuffer rkey = memory.getRemoteKeyBuffer();
            byte[] a = new byte[address.remaining()];
            address.get(a);
            byte[] k = new byte[rkey.remaining()];
            rkey.get(k);
            Thread.ofPlatform().daemon().start(() -> {
                try {
                    watcher.join();
                } catch (InterruptedException ignored) {
                    Thread.currentThread().interrupt();
                }
                worker.signal();
            });
            out.println("READY " + Base64.getEncoder().encodeToString(a) + " " + Base64.getEncoder().encodeToString(k)
                    + " " + memory.getAddress());
            while (watcher.isAlive()) {
                if (worker.progress() == 0) {
                    worker.waitForEvents();
                }
            }
            memory.deregister();
        }
    }
}
