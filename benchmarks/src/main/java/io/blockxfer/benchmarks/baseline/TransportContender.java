package io.blockxfer.benchmarks.baseline;

import io.blockxfer.nixl.internal.RegionMemory;
import io.blockxfer.transport.CompletionHandler;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.Notification;
import io.blockxfer.transport.NotificationHandler;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.ProgressMode;
import io.blockxfer.transport.ProviderInfo;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import io.blockxfer.transport.spi.TransportProvider;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A blockxfer backend through its public API: an initiator in this JVM and a target in this JVM
 * (as NIXL's Python and C drivers run their two agents) or in a child JVM; each transfer is one
 * {@code writeBlocks} followed, for a {@link Caller#SPIN spinning} caller, by
 * {@code poll(peer, handler)} in a spin until it is reported (as the Python original calls
 * {@code check_xfer_state}), or, for a {@link Caller#WAIT waiting} one, by the blocking
 * {@code poll(peer, handler, limit)}. A {@link #notifying} contender's transfers each carry a
 * 16-byte notification, and its target (in this JVM) takes what arrived with
 * {@code pollNotifications(handler)} after each transfer, as the C and Python drivers call
 * {@code get_notifs}; the round fails unless every transfer's notification arrived once.
 *
 * <p><b>Thread safety:</b> not thread-safe.
 */
final class TransportContender implements Contender, CompletionHandler, NotificationHandler {

    /** The 16 bytes every notifying contender sends, as the C and Python drivers do. */
    private static final byte[] MESSAGE = "req-0000000000ok".getBytes(StandardCharsets.US_ASCII);

    /** How the caller learns that its transfer ended. */
    enum Caller {
        /** Polls again at once until the transfer is reported. */
        SPIN,
        /** Blocks in the transport's wait until the transfer is reported. */
        WAIT
    }

    private static final String PEER = "target";
    /** Process CPU time (all threads, native ones included), in clock ticks: fine over seconds. */
    private static final com.sun.management.OperatingSystemMXBean CPU =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private final String name;
    private final String backend;
    private final Map<String, String> options;
    private final ProgressMode mode;
    private final boolean targetInChild;
    private final Caller caller;
    private final boolean notify;
    private long reported = -1;
    private long notified;
    private long checks;
    private long transfers;
    private final Map<BaselineCase, Cost> costs = new EnumMap<>(BaselineCase.class);
    private boolean failed;

    /** A contender whose initiator (and target, when in this JVM) opens with {@code options} in {@code mode}. */
    TransportContender(String name, String backend, Map<String, String> options, ProgressMode mode,
            boolean targetInChild) {
        this(name, backend, options, mode, targetInChild, Caller.SPIN);
    }

    /** The same, with the caller given. */
    TransportContender(String name, String backend, Map<String, String> options, ProgressMode mode,
            boolean targetInChild, Caller caller) {
        this(name, backend, options, mode, targetInChild, caller, false);
    }

    private TransportContender(String name, String backend, Map<String, String> options, ProgressMode mode,
            boolean targetInChild, Caller caller, boolean notify) {
        this.notify = notify;
        this.caller = caller;
        this.name = name;
        this.backend = backend;
        this.options = Map.copyOf(options);
        this.mode = mode;
        this.targetInChild = targetInChild;
    }

    /**
     * A spinning contender whose transfers each carry a notification that its target, in this JVM,
     * takes after each transfer.
     */
    static TransportContender notifying(String name, String backend, Map<String, String> options, ProgressMode mode) {
        return new TransportContender(name, backend, options, mode, false, Caller.SPIN, true);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return "blockxfer " + backend + " backend, writeBlocks + " + (caller == Caller.SPIN ? "spinning poll"
                : "waiting poll (poll with a limit)") + ", target "
                + (targetInChild ? "in a child JVM" : "in this JVM") + (options.isEmpty() ? ", backend defaults"
                : ", options " + options) + (mode == ProgressMode.AUTO ? "" : ", progress mode " + mode)
                + (notify ? "; a 16-byte notification on every transfer, taken by the target (pollNotifications)"
                        + " after each" : "");
    }

    @Override
    public @Nullable String unavailable() {
        ProviderInfo p = Transports.providers(getClass().getClassLoader()).stream()
                .filter(i -> i.name().equals(backend)).findFirst().orElse(null);
        if (p == null) {
            return "no " + backend + " backend on the class path";
        }
        return p.isAvailable() ? null : p.availability().cause();
    }

    @Override
    public Map<BaselineCase, Cost> lastCosts() {
        return Map.copyOf(costs);
    }

    @Override
    public Map<BaselineCase, Double> round(List<BaselineCase> cases, double seconds) throws Exception {
        TransportProvider provider = Transports.select(backend, getClass().getClassLoader());
        Map<BaselineCase, Double> rates = new EnumMap<>(BaselineCase.class);
        for (BaselineCase c : cases) {
            TransportConfig config = config(c, "baseline-initiator");
            try (DataTransport initiator = provider.open(config);
                    TargetChild.Handle target = targetInChild ? TargetChild.blockxfer(backend, c, options)
                            : TargetChild.inThisJvm(provider.open(config(c, "baseline-target")))) {
                initiator.region().segment().fill((byte) 1);
                PeerDescriptor d = target.descriptor();
                initiator.addPeer(PEER, d);
                int[][] local = new int[c.slots()][];
                int[][] remote = new int[c.slots()][];
                for (int s = 0; s < c.slots(); s++) {
                    local[s] = c.local(s);
                    remote[s] = c.remote(s);
                }
                checks = 0;
                transfers = 0;
                notified = 0;
                DataTransport receiver = notify ? Objects.requireNonNull(target.transport(), "a target in this JVM")
                        : null;
                long cpuStart = CPU.getProcessCpuTime();
                long start = System.nanoTime();
                rates.put(c, OneInFlight.rate(c, s -> transfer(initiator, receiver, local[s], remote[s]), seconds));
                double cores = (CPU.getProcessCpuTime() - cpuStart) / (double) (System.nanoTime() - start);
                if (receiver != null) {
                    awaitNotifications(receiver);
                }
                costs.put(c, new Cost((double) checks / transfers, cores,
                        hugePageShare(initiator.region().segment(), target.region())));
            }
        }
        return rates;
    }

    /**
     * The share of both regions in transparent huge pages, read from this process's
     * {@code /proc/self/smaps}; NaN when the target is in a child.
     */
    private static double hugePageShare(MemorySegment initiator, @Nullable MemorySegment target) throws IOException {
        if (target == null) {
            return Double.NaN;
        }
        long huge = RegionMemory.hugePageBytes(initiator.address(), initiator.byteSize())
                + RegionMemory.hugePageBytes(target.address(), target.byteSize());
        return huge / (double) (initiator.byteSize() + target.byteSize());
    }

    private void transfer(DataTransport initiator, @Nullable DataTransport receiver, int[] local, int[] remote)
            throws InterruptedException {
        long id = receiver == null ? initiator.writeBlocks(PEER, local, remote)
                : initiator.writeBlocks(PEER, local, remote, MESSAGE);
        transfers++;
        while (reported != id) {
            checks++;
            if (caller == Caller.SPIN) {
                initiator.poll(PEER, this);
            } else {
                initiator.poll(PEER, this, 1, TimeUnit.SECONDS);
            }
        }
        if (failed) {
            throw new IllegalStateException(backend + ": transfer " + id + " failed");
        }
        if (receiver != null) {
            receiver.pollNotifications(this);
        }
    }

    @Override
    public void onNotification(Notification n) {
        notified++;
    }

    /** A message still on its way after the last transfer: waits for it (a second at most); every one arrived. */
    private void awaitNotifications(DataTransport receiver) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (notified < transfers && System.nanoTime() < end) {
            receiver.pollNotifications(this, 10, TimeUnit.MILLISECONDS);
        }
        if (notified != transfers) {
            throw new IllegalStateException(name + ": " + notified + " notifications for " + transfers + " transfers");
        }
    }

    @Override
    public void onTerminal(long transferId, boolean success) {
        reported = transferId;
        failed |= !success;
    }

    private TransportConfig config(BaselineCase c, String agent) {
        return TransportConfig.builder(RegionSpec.allocate(c.regionBlocks(), c.blockBytes()))
                .agentName(agent + "-" + ProcessHandle.current().pid()).options(options).progressMode(mode)
                .transferTimeout(Duration.ofSeconds(30)).build();
    }
}
