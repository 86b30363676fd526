package io.blockxfer.cli.internal;

import io.blockxfer.transport.CompletionHandler;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.TransferFuture;
import io.blockxfer.transport.TransferOp;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * The measured loop of {@code blockxfer bench}: keeps up to {@code window} transfers in flight,
 * one per {@link SlotPlan} slot, refilling a slot as soon as a poll reports its transfer, and
 * records each transfer's latency, from just before its submit to the poll that reported it, in an
 * HdrHistogram (three significant digits). After each poll it waits as its {@link Poller} says. It
 * uses the allocation-free {@link DataTransport#poll(String, CompletionHandler)}, and recording
 * allocates nothing, so nothing in the loop allocates. {@link PollStyle#WAIT} blocks in
 * {@link DataTransport#poll(String, CompletionHandler, long, TimeUnit)} instead of polling;
 * {@link PollStyle#JOIN} submits asynchronously and blocks on the oldest future in flight (its
 * latency ends when the blocked call returns; a future is allocated per transfer);
 * {@link PollStyle#CALLBACK} submits asynchronously and adds a dependent to each future that hands
 * its slot back (its latency ends when the dependent runs; a future and its dependent are
 * allocated per transfer). With a
 * {@link Pacer} ({@code --rate}) it submits on the pacer's schedule instead of as soon as a slot is
 * free, and idles between submissions as its caller would (a spinning caller spins, the others park).
 * A notifying loop ({@code --notify}) sends a notification with every transfer, stamped
 * ({@link NotifyStamp}) with the tag of the run ({@link #tag}) and the time its latency starts
 * from, written into one reused array.
 *
 * <p><b>Thread safety:</b> not thread-safe; confined to the measuring thread.
 */
final class TransferLoop implements CompletionHandler {

    /** How long a loop waits with transfers in flight and no report before it gives up. */
    private static final long STUCK_NANOS = BenchConfigs.TRANSFER_TIMEOUT.toNanos() + 10_000_000_000L;
    /** Latencies above this (an hour) are recorded as this. */
    private static final long HIGHEST_NANOS = 3_600_000_000_000L;

    private final DataTransport transport;
    private final TransferOp op;
    private final SlotPlan plan;
    private final long[] slotId;
    private final long[] slotStart;
    private final Histogram latencies = new Histogram(HIGHEST_NANOS, 3);
    private final Poller poller;
    private final CpuClock cpu = CpuClock.ofThisProcess();
    private final @Nullable Pacer pacer;
    /** The notification every transfer carries, rewritten before each submit; null when none. */
    private final byte @Nullable [] stamp;
    private long tag = NotifyStamp.UNMEASURED;
    // ---- PollStyle.JOIN: each slot's future
    private final @Nullable TransferFuture[] slotFuture;
    // ---- PollStyle.CALLBACK: futures' dependents hand ended slots to the loop through the queue
    private final long[] slotEnd;
    private final boolean[] slotOk;
    private final ArrayBlockingQueue<Integer> ended;
    private int inFlight;
    private long lastReport;
    private long done;
    private long failed;
    private long elapsedNanos;
    private long cpuNanos;

    /** A loop that keeps its window full, or, with a {@code pacer}, submits on its schedule. */
    TransferLoop(DataTransport transport, TransferOp op, SlotPlan plan, Poller poller, @Nullable Pacer pacer) {
        this(transport, op, plan, poller, pacer, false);
    }

    /** As above; with {@code notify}, every transfer carries a notification. */
    TransferLoop(DataTransport transport, TransferOp op, SlotPlan plan, Poller poller, @Nullable Pacer pacer,
            boolean notify) {
        this.stamp = notify ? NotifyStamp.buffer() : null;
        this.transport = transport;
        this.op = op;
        this.plan = plan;
        this.poller = poller;
        this.pacer = pacer;
        this.slotId = new long[plan.window()];
        this.slotStart = new long[plan.window()];
        this.slotEnd = new long[plan.window()];
        this.slotOk = new boolean[plan.window()];
        this.slotFuture = new TransferFuture[plan.window()];
        this.ended = new ArrayBlockingQueue<>(plan.window());
        Arrays.fill(slotId, -1);
    }

    /**
     * Runs until {@code nanos} have passed and at least {@code minTransfers} transfers were
     * reported, then drains what is in flight; adds to the totals.
     */
    void run(long nanos, long minTransfers) {
        run(nanos, minTransfers, pacer);
    }

    /**
     * Runs as {@link #run} does, but as fast as the window allows even when paced: a warm-up, so
     * that the JIT compiles the loop's and the transport's hot paths before anything is measured (a
     * paced loop alone makes too few calls in a warm-up for that, and the compiler threads' CPU
     * would then count in the paced row).
     */
    void warmUp(long nanos, long minTransfers) {
        run(nanos, minTransfers, null);
    }

    private void run(long nanos, long minTransfers, @Nullable Pacer pacer) {
        long cpuStart = cpu.nanos();
        long start = System.nanoTime();
        long end = start + nanos;
        long target = done + failed + minTransfers;
        lastReport = start;
        int window = plan.window();
        poller.start();
        if (pacer != null) {
            pacer.start(start);
        }
        while (true) {
            long now = System.nanoTime();
            boolean open = now - end < 0;
            boolean freeSlot = false;
            for (int s = 0; s < window; s++) {
                if (slotId[s] < 0 && (open || done + failed + inFlight < target)) {
                    if (pacer != null && !pacer.isDue(now)) {
                        freeSlot = true;
                        break;
                    }
                    submit(s);
                    if (pacer != null) {
                        pacer.submitted(now);
                    }
                }
            }
            if (inFlight == 0) {
                if (!freeSlot) {
                    break;
                }
                // paced, nothing in flight: idle until the next submission is due (or the time is up)
                long due = pacer == null ? now : pacer.due();
                Pacer.waitUntil(open && done + failed >= target && end - due < 0 ? end : due,
                        poller.style() == PollStyle.SPIN);
                continue;
            }
            // a paced caller with a free slot waits no longer than the next submission
            long limitNanos = freeSlot && pacer != null ? Math.max(0, pacer.due() - System.nanoTime())
                    : TimeUnit.SECONDS.toNanos(1);
            int reported = switch (poller.style()) {
                case WAIT -> awaitReports(limitNanos);
                case JOIN -> joinOldest(limitNanos);
                case CALLBACK -> awaitFutures(limitNanos);
                default -> transport.poll(PeerPair.PEER, this);
            };
            if (reported == 0 && System.nanoTime() - lastReport > STUCK_NANOS) {
                throw new CliException(transport.backendName() + ": " + inFlight + " transfers got no report"
                        + " within " + STUCK_NANOS / 1_000_000_000L + " s; the backend is stuck");
            }
            poller.afterPoll(reported);
        }
        elapsedNanos += lastReport - start;
        cpuNanos += cpu.nanos() - cpuStart;
    }

    /** Blocks in the transport until at least one transfer is reported, or {@code limitNanos} passed. */
    private int awaitReports(long limitNanos) {
        try {
            return transport.poll(PeerPair.PEER, this, limitNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException("interrupted while waiting for transfers");
        }
    }

    /**
     * Blocks on the future of the oldest transfer in flight for at most {@code limitNanos}, then
     * takes every slot whose future is done.
     */
    private int joinOldest(long limitNanos) {
        int oldest = -1;
        for (int s = 0; s < slotId.length; s++) {
            if (slotId[s] >= 0 && (oldest < 0 || slotStart[s] - slotStart[oldest] < 0)) {
                oldest = s;
            }
        }
        TransferFuture f = slotFuture[oldest];
        if (f == null) {
            throw new IllegalStateException("slot " + oldest + " has a transfer in flight and no future");
        }
        try {
            f.get(limitNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException("interrupted while waiting for transfers");
        } catch (ExecutionException | TimeoutException e) {
            // a failed transfer is recorded below; a limit that passed reports nothing
        }
        long now = System.nanoTime();
        int n = 0;
        for (int s = 0; s < slotId.length; s++) {
            TransferFuture done = slotFuture[s];
            if (slotId[s] >= 0 && done != null && done.isDone()) {
                slotFuture[s] = null;
                record(s, now, !done.isCompletedExceptionally());
                n++;
            }
        }
        return n;
    }

    /** Blocks until at least one future completed, or {@code limitNanos} passed; takes every ended slot. */
    private int awaitFutures(long limitNanos) {
        Integer s;
        try {
            s = ended.poll(limitNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException("interrupted while waiting for transfers");
        }
        int n = 0;
        while (s != null) {
            record(s, slotEnd[s], slotOk[s]);
            n++;
            s = ended.poll();
        }
        return n;
    }

    private void submitAsync(int s) {
        long start = System.nanoTime();
        slotStart[s] = start;
        byte[] note = stamp;
        TransferFuture f;
        if (note == null) {
            f = op == TransferOp.WRITE ? transport.writeBlocksAsync(PeerPair.PEER, plan.local(s), plan.remote(s))
                    : transport.readBlocksAsync(PeerPair.PEER, plan.local(s), plan.remote(s));
        } else {
            NotifyStamp.write(note, tag, start);
            f = op == TransferOp.WRITE ? transport.writeBlocksAsync(PeerPair.PEER, plan.local(s), plan.remote(s), note)
                    : transport.readBlocksAsync(PeerPair.PEER, plan.local(s), plan.remote(s), note);
        }
        if (f.transferId() == DataTransport.NOT_SUBMITTED) {
            throw new CliException(transport.backendName() + ": the target peer is no longer registered");
        }
        slotId[s] = f.transferId();
        inFlight++;
        if (poller.style() == PollStyle.JOIN) {
            slotFuture[s] = f;
            return;
        }
        // the callback hands the slot over; the dependent future it returns carries nothing more
        var unused = f.whenComplete((v, e) -> {
            slotEnd[s] = System.nanoTime();
            slotOk[s] = e == null;
            ended.add(s);
        });
    }

    private void submit(int s) {
        if (poller.style() == PollStyle.JOIN || poller.style() == PollStyle.CALLBACK) {
            submitAsync(s);
            return;
        }
        long start = System.nanoTime();
        slotStart[s] = start;
        byte[] note = stamp;
        long id;
        if (note == null) {
            id = op == TransferOp.WRITE ? transport.writeBlocks(PeerPair.PEER, plan.local(s), plan.remote(s))
                    : transport.readBlocks(PeerPair.PEER, plan.local(s), plan.remote(s));
        } else {
            NotifyStamp.write(note, tag, start);
            id = op == TransferOp.WRITE ? transport.writeBlocks(PeerPair.PEER, plan.local(s), plan.remote(s), note)
                    : transport.readBlocks(PeerPair.PEER, plan.local(s), plan.remote(s), note);
        }
        if (id == DataTransport.NOT_SUBMITTED) {
            throw new CliException(transport.backendName() + ": the target peer is no longer registered");
        }
        slotId[s] = id;
        inFlight++;
    }

    @Override
    public void onTerminal(long transferId, boolean success) {
        long now = System.nanoTime();
        for (int s = 0; s < slotId.length; s++) {
            if (slotId[s] == transferId) {
                record(s, now, success);
                return;
            }
        }
        lastReport = now;
        if (success) {
            done++;
        } else {
            failed++;
        }
    }

    /** Slot {@code s}'s transfer ended at {@code now}. */
    private void record(int s, long now, boolean success) {
        latencies.recordValue(Math.min(HIGHEST_NANOS, Math.max(0, now - slotStart[s])));
        slotId[s] = -1;
        inFlight--;
        lastReport = now;
        if (success) {
            done++;
        } else {
            failed++;
        }
    }

    /**
     * The tag the notifications of the next runs carry: the measured run's, or
     * {@link NotifyStamp#UNMEASURED} for a warm-up.
     */
    void tag(long tag) {
        this.tag = tag;
    }

    /** Whether every transfer carries a notification. */
    boolean notifies() {
        return stamp != null;
    }

    /** Forgets the totals (after a warm-up). */
    void reset() {
        latencies.reset();
        done = 0;
        failed = 0;
        elapsedNanos = 0;
        cpuNanos = 0;
    }

    long done() {
        return done;
    }

    long failed() {
        return failed;
    }

    long elapsedNanos() {
        return elapsedNanos;
    }

    /** CPU time this process spent while the loop ran, per transfer reported done, in nanoseconds; NaN if unknown. */
    double cpuNanosPerTransfer() {
        return done == 0 || cpuNanos < 0 || !cpu.available() ? Double.NaN : (double) cpuNanos / done;
    }

    /** CPU time this process spent while the loop ran, over the loop's wall time; NaN if unknown. */
    double cpuCores() {
        return elapsedNanos <= 0 || cpuNanos < 0 || !cpu.available() ? Double.NaN : (double) cpuNanos / elapsedNanos;
    }

    /** The recorded latencies, in nanoseconds. */
    Histogram latencies() {
        return latencies;
    }
}
