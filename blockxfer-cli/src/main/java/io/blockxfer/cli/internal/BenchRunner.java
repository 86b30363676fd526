package io.blockxfer.cli.internal;

import io.blockxfer.tck.BlockPattern;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.ProviderInfo;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.spi.TransportProvider;
import java.io.PrintWriter;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.HdrHistogram.Histogram;

/**
 * Runs a {@link BenchSettings} sweep against a {@link TargetSite}. For each backend, block size
 * and batch size it opens one {@link PeerPair} (regions of {@code batch x window} blocks, touched
 * before measuring), then for each operation: one verified transfer (the bytes must land), a
 * warm-up of every poll style (unpaced, then as measured until the JIT is quiet), and two rounds, each of memcpy baseline, the wire's ceilings when the
 * target is remote (TCP stream, memcpy over there), and transfers with every poll style (with a
 * remote target, between two readings of its process's CPU time), in an order
 * that rotates from round to round, so that background load hits them all alike. With
 * {@code --notify}, each poll style runs twice per round on a backend that carries notifications,
 * without and with a notification on every transfer ({@link NotifyMeter}), in the same rotation,
 * and the target's notification of one transfer must arrive before anything is measured.
 *
 * <p><b>Thread safety:</b> not thread-safe; runs on the calling thread.
 */
public final class BenchRunner {

    private static final int ROUNDS = 2;
    private static final int VERIFIED_BLOCKS = 8;
    private static final long SETTLE_SLICE_NANOS = 200_000_000L;
    private static final long SETTLE_QUIET_MILLIS = 5;
    private static final long SETTLE_MAX_NANOS = 5_000_000_000L;

    private final ProviderSource source;
    private final BenchSettings settings;
    private final TargetSite site;
    private final ProgressBar progress;
    private final PrintWriter notes;
    private final MemoryBudget budget;

    /** A runner that opens targets at {@code site} and reports skipped points on {@code notes}. */
    public BenchRunner(ProviderSource source, BenchSettings settings, TargetSite site, ProgressBar progress,
            PrintWriter notes) {
        this.source = source;
        this.settings = settings;
        this.site = site;
        this.progress = progress;
        this.notes = notes;
        this.budget = MemoryBudget.of(settings.maxMemoryBytes());
    }

    private record Point(TransportProvider provider, long blockBytes, int batch, int window, List<TransferOp> ops,
            boolean withNotifications) {
    }

    /** One caller loop measured in the rounds: a poll style, without or with notifications. */
    private record Contender(PollStyle style, TransferLoop loop, @Nullable NotifyMeter meter) {

        String label() {
            return style.label() + " poll" + (meter != null ? ", notified" : "");
        }
    }

    /**
     * Checks the whole sweep, then measures it.
     *
     * @throws CliException for an unknown or unsuitable backend or sizes that do not fit, before
     *     anything is measured
     */
    public List<BenchRow> run() {
        List<Point> points = plan();
        int steps = points.stream().mapToInt(p -> p.ops().size() * (2 + ROUNDS * (1 + settings.polls().size()
                * (p.withNotifications() ? 2 : 1)))).sum();
        progress.start(steps);
        List<BenchRow> rows = new ArrayList<>();
        try {
            for (Point p : points) {
                measure(p, rows);
            }
        } finally {
            progress.finish();
        }
        return rows;
    }

    private List<Point> plan() {
        List<Point> points = new ArrayList<>();
        List<String> silent = new ArrayList<>();
        for (TransportProvider provider : providers()) {
            List<TransferOp> ops = new ArrayList<>();
            for (TransferOp op : settings.ops()) {
                if (op == TransferOp.READ && !provider.capabilities().contains(Capability.READ)) {
                    notes.println("bench: skipping read on " + provider.name() + ": it does not support READ");
                } else {
                    ops.add(op);
                }
            }
            if (ops.isEmpty()) {
                continue;
            }
            boolean notify = settings.withNotifications();
            if (notify) {
                Optional<String> refusal = site.notifyRefusal(provider);
                if (refusal.isPresent()) {
                    silent.add(refusal.get());
                    notify = false;
                }
            }
            for (long blockBytes : settings.blockSizes()) {
                for (int batch : settings.batches()) {
                    int window = settings.window() > 0 ? settings.window()
                            : MemoryBudget.autoWindow(blockBytes * batch);
                    budget.check(blockBytes, batch, window, site.regionsHere());
                    points.add(new Point(provider, blockBytes, batch, window, ops, notify));
                }
            }
        }
        if (points.isEmpty()) {
            throw CliException.usage("nothing to measure: no selected backend supports the requested operations");
        }
        if (settings.withNotifications() && points.stream().noneMatch(Point::withNotifications)) {
            throw CliException.usage("--notify needs a backend that carries notifications to its target: "
                    + String.join("; ", silent));
        }
        silent.forEach(reason -> notes.println("bench: no notified rows: " + reason));
        return points;
    }

    /** The providers asked for, each one the site can host; {@code all} skips (with a note) those it cannot. */
    private List<TransportProvider> providers() {
        Map<String, TransportProvider> chosen = new LinkedHashMap<>();
        for (String name : settings.backends()) {
            if (name.equals("all")) {
                for (ProviderInfo p : source.providers()) {
                    if (!p.isAvailable() || chosen.containsKey(p.name())) {
                        continue;
                    }
                    TransportProvider provider = p.provider().orElseThrow();
                    Optional<TargetSite.Refusal> refusal = site.refusal(provider);
                    if (refusal.isPresent()) {
                        notes.println("bench: skipping " + p.name() + ": " + refusal.get().reason());
                    } else {
                        chosen.put(p.name(), provider);
                    }
                }
            } else {
                TransportProvider provider = source.select(name);
                Optional<TargetSite.Refusal> refusal = site.refusal(provider);
                if (refusal.isPresent()) {
                    throw refusal.get().toException();
                }
                chosen.putIfAbsent(provider.name(), provider);
            }
        }
        if (chosen.isEmpty()) {
            throw new CliException("no backend to measure: none is available here"
                    + (site.placement() == Placement.IN_PROCESS ? "" : " that the " + site.placement().label()
                    + " target can use") + " (see 'blockxfer backends')");
        }
        return List.copyOf(chosen.values());
    }

    private void measure(Point p, List<BenchRow> rows) {
        SlotPlan plan = SlotPlan.of(p.window(), p.batch(), settings.layout());
        String label = p.provider().name() + " " + ByteSizes.compact(p.blockBytes()) + " x " + p.batch();
        progress.show(label + ": opening regions of " + ByteSizes.format(plan.blocksNeeded() * p.blockBytes()));
        try (PeerPair pair = open(p.provider(), plan.blocksNeeded(), p.blockBytes())) {
            DataTransport initiator = pair.initiator();
            initiator.region().segment().fill((byte) 1);
            pair.baselineTarget().fill((byte) 2);
            for (TransferOp op : p.ops()) {
                rows.addAll(measureOp(p, op, plan, pair, label + " " + op.name().toLowerCase(Locale.ROOT)));
            }
        }
    }

    private PeerPair open(TransportProvider provider, int numBlocks, long blockBytes) {
        try {
            return site.open(provider, numBlocks, blockBytes, settings.tuning());
        } catch (OutOfMemoryError e) {
            throw new CliException("could not allocate regions of " + numBlocks + " x " + ByteSizes.format(blockBytes)
                    + ": " + e.getMessage() + " (try smaller --block-sizes, --batches or --window)");
        }
    }

    /**
     * Runs {@code loop} as it will be measured (paced if it is) in slices of {@link #SETTLE_SLICE_NANOS}
     * until the JIT compiled for less than {@link #SETTLE_QUIET_MILLIS} ms in a slice, at most
     * {@link #SETTLE_MAX_NANOS}: on two busy cores the compiler threads otherwise keep compiling
     * well into a short measurement, and their CPU counts in the row (a paced 1 x 4 KiB row measured
     * for 0.45 s showed twice the CPU per transfer of one measured for 3 s, half of it the C2
     * compiler's). Without compilation-time monitoring it runs one slice.
     */
    private static void settleJit(TransferLoop loop, int window) {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean monitored = jit != null && jit.isCompilationTimeMonitoringSupported();
        long start = System.nanoTime();
        do {
            long compiled = monitored ? jit.getTotalCompilationTime() : 0;
            loop.run(SETTLE_SLICE_NANOS, window);
            if (!monitored || jit.getTotalCompilationTime() - compiled < SETTLE_QUIET_MILLIS) {
                return;
            }
        } while (System.nanoTime() - start < SETTLE_MAX_NANOS);
    }

    private List<BenchRow> measureOp(Point p, TransferOp op, SlotPlan plan, PeerPair pair, String label) {
        boolean write = op == TransferOp.WRITE;
        DataTransport initiator = pair.initiator();
        long durationNanos = settings.duration().toNanos();
        List<Contender> loops = new ArrayList<>();
        for (PollStyle style : settings.polls()) {
            for (boolean notify : p.withNotifications() ? List.of(false, true) : List.of(false)) {
                loops.add(new Contender(style, new TransferLoop(initiator, op, plan, new Poller(style,
                        settings.pollInterval().toNanos()), settings.rate() > 0 ? new Pacer(settings.rate()) : null,
                        notify), notify ? new NotifyMeter(pair.notifications(), settings.notifyTaker()) : null));
            }
        }
        MemcpyLoop memcpy = new MemcpyLoop(initiator.region().segment(), pair.baselineTarget(), write, plan,
                p.blockBytes());
        Optional<WireProbe> wire = pair.wire();
        long[] targetCpu = new long[loops.size()]; // -1 once the target could not tell

        progress.show(label + ": verifying");
        verify(pair, op, plan, loops.getFirst().loop());
        for (Contender c : loops) {
            NotifyMeter meter = c.meter();
            if (meter != null) {
                meter.verify(c.loop(), p.provider().name(), op);
                break;
            }
        }
        progress.step();

        progress.show(label + ": warming up");
        long warm = Math.max(durationNanos / 5, 50_000_000L);
        for (Contender c : loops) {
            c.loop().warmUp(warm, 2L * plan.window());
            settleJit(c.loop(), plan.window());
            c.loop().reset();
        }
        memcpy.run(warm / 2);
        memcpy.reset();
        progress.step();

        WireProbe.Rate stream = WireProbe.Rate.NONE;
        WireProbe.Rate remoteMemcpy = WireProbe.Rate.NONE;
        for (int round = 0; round < ROUNDS; round++) {
            progress.show(label + ": memcpy baseline");
            memcpy.run(durationNanos * 2 / 5 / ROUNDS);
            if (wire.isPresent()) {
                progress.show(label + ": TCP stream and remote memcpy");
                stream = stream.plus(wire.get().stream(op, plan, p.blockBytes(), durationNanos * 2 / 5 / ROUNDS));
                remoteMemcpy = remoteMemcpy.plus(wire.get().remoteMemcpy(op, plan, p.blockBytes(),
                        durationNanos / 5 / ROUNDS));
            }
            progress.step();
            for (int i = 0; i < loops.size(); i++) {
                int s = (i + round) % loops.size();
                Contender c = loops.get(s);
                long cpuBefore = wire.map(WireProbe::targetCpuNanos).orElse(-1L);
                progress.show(label + ": transfers, " + c.label());
                NotifyMeter meter = c.meter();
                if (meter != null) {
                    meter.run(c.loop(), durationNanos * 3 / 5 / ROUNDS);
                } else {
                    c.loop().run(durationNanos * 3 / 5 / ROUNDS, 1);
                }
                long cpuAfter = cpuBefore < 0 ? -1 : wire.get().targetCpuNanos();
                targetCpu[s] = cpuAfter < 0 || targetCpu[s] < 0 ? -1 : targetCpu[s] + cpuAfter - cpuBefore;
                progress.step();
            }
        }

        List<BenchRow> rows = new ArrayList<>();
        BenchRow plain = null;
        for (int s = 0; s < loops.size(); s++) {
            Contender c = loops.get(s);
            NotifyMeter meter = c.meter();
            BenchRow r = row(p, op, plan, c.loop(), c.style(), memcpy, stream, remoteMemcpy,
                    wire.isPresent() && targetCpu[s] >= 0 ? targetCpu[s] : -1, label,
                    meter == null || plain == null ? null : meter.figures(plain.transfersPerSec()));
            if (meter == null) {
                plain = r;
            } else if (meter.early() > 0) {
                notes.println("bench: " + meter.early() + " notifications of " + label + " (" + c.label()
                        + ") seemed to arrive before their submit by the hosts' clocks as corrected (the estimated"
                        + " offset may be off by clockErrorMicros); counted as 0 us");
            }
            rows.add(r);
        }
        return rows;
    }

    private BenchRow row(Point p, TransferOp op, SlotPlan plan, TransferLoop transfers, PollStyle style,
            MemcpyLoop memcpy, WireProbe.Rate stream, WireProbe.Rate remoteMemcpy, long targetCpuNanos, String label,
            @Nullable NotifyFigures notified) {
        String opName = op.name().toLowerCase(Locale.ROOT);
        if (transfers.done() == 0) {
            throw new CliException(p.provider().name() + ": every " + opName + " transfer failed ("
                    + transfers.failed() + " of them)");
        }
        if (transfers.failed() > 0) {
            notes.println("bench: " + transfers.failed() + " " + label + " transfers (" + style.label() + " poll"
                    + (transfers.notifies() ? ", notified" : "") + ") failed; they count as not moved");
        }
        double seconds = transfers.elapsedNanos() / 1e9;
        long bytes = transfers.done() * plan.batch() * p.blockBytes();
        Histogram h = transfers.latencies();
        return new BenchRow(p.provider().name(), opName, site.placement().label(),
                settings.layout().name().toLowerCase(Locale.ROOT), style.label(),
                settings.tuning().progress().name().toLowerCase(Locale.ROOT), settings.hog(), p.blockBytes(),
                p.batch(), plan.window(), transfers.done(), transfers.failed(), seconds,
                bytes / (double) transfers.elapsedNanos(), memcpy.gbPerSec(), transfers.done() / seconds,
                h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3,
                h.getValueAtPercentile(99.9) / 1e3, h.getMaxValue() / 1e3, transfers.cpuCores(), stream.gbPerSec(),
                remoteMemcpy.gbPerSec(), transfers.cpuNanosPerTransfer() / 1e3,
                settings.rate() > 0 ? settings.rate() : Double.NaN,
                targetCpuNanos < 0 ? Double.NaN : targetCpuNanos / 1e3 / transfers.done(), notified);
    }

    /** One transfer of slot 0 whose bytes are checked, so a backend cannot win by not moving them. */
    private void verify(PeerPair pair, TransferOp op, SlotPlan plan, TransferLoop transfers) {
        DataTransport initiator = pair.initiator();
        int[] local = plan.local(0);
        int[] remote = plan.remote(0);
        int checked = Math.min(VERIFIED_BLOCKS, local.length);
        long family = op == TransferOp.WRITE ? 11 : 12;
        for (int i = 0; i < checked; i++) {
            long seed = BlockPattern.seed(family, i);
            if (op == TransferOp.WRITE) {
                BlockPattern.fill(initiator.region().block(local[i]), seed);
            } else {
                pair.fillTarget(remote[i], seed);
            }
        }
        transfers.run(0, 1);
        if (transfers.done() != 1) {
            throw new CliException(initiator.backendName() + ": the first " + op.name().toLowerCase(Locale.ROOT)
                    + " transfer failed");
        }
        for (int i = 0; i < checked; i++) {
            long seed = BlockPattern.seed(family, i);
            long at = op == TransferOp.WRITE ? pair.targetMismatch(remote[i], seed)
                    : BlockPattern.firstMismatch(initiator.region().block(local[i]), seed);
            if (at >= 0) {
                throw new CliException(initiator.backendName() + ": a " + op.name().toLowerCase(Locale.ROOT)
                        + " reported done but block " + (op == TransferOp.WRITE ? remote[i] : local[i])
                        + " differs at byte " + at);
            }
        }
        transfers.reset();
    }
}
