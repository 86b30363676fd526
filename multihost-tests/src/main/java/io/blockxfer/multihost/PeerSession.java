package io.blockxfer.multihost;

import io.blockxfer.tck.BlockPattern;
import io.blockxfer.transport.BlockRegion;
import io.blockxfer.transport.CompletionHandler;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.TransferOp;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * One initiator's stream of transfers to one peer, on a thread of its own: random sets of blocks
 * written with fresh {@link BlockPattern}s and read back, and random READs of blocks whose pattern
 * the session knows. Every READ that completes is verified word by word against the pattern the
 * remote blocks must hold, and every completed WRITE is verified by the READ of its blocks that
 * follows it, so every completion is checked. Every id reported by {@code poll(peer)} is matched
 * against the ids this session submitted: a second report is a duplicate, an id it never
 * submitted is foreign, and an id never reported is lost.
 *
 * <p>On the first failed report the session stops submitting, waits until every transfer still in
 * flight has been reported, and then emits {@code DOWN}; it then only polls, so that late or
 * duplicate reports are still caught. {@link #stop()} ends the phase; {@link #start()} begins the
 * next one (after the peer was re-added) with fresh counters and the same block model.
 *
 * <p>Events: {@code E FAIL peer= id= op= at= age=} (first failure of a phase), {@code E DOWN peer=
 * at= ...}, {@code E MISMATCH peer= id= block= offset=}, {@code E UNEXPECTED peer= id= kind=},
 * {@code E PROGRESS peer= ...}, and at stop {@code E STATS peer= ...} and {@code E MODEL peer=
 * blocks=b:seed,...}. Times are epoch milliseconds, comparable across containers of one host.
 *
 * <p><b>Thread safety:</b> {@link #start()}, {@link #stop()} and {@link #state()} may be called
 * from any thread, but not concurrently with each other; everything else runs on the session's
 * own thread.
 */
public final class PeerSession {

    /** Where a session is. */
    public enum State {
        /** Not started, or stopped. */
        IDLE,
        /** Streaming transfers. */
        RUNNING,
        /** Saw a failure; waiting for its transfers in flight to be reported. */
        FAILING,
        /** Every transfer of the phase is reported; only polling. */
        DOWN
    }

    private static final int MAX_MISMATCH_EVENTS = 10;

    private final DataTransport transport;
    private final String peerId;
    private final BlockRegion region;
    private final RemoteBlocks remote;
    private final LocalBlocks local;
    private final IdLedger ledger;
    private final EventSink events;
    private final Workload workload;
    private final SplittableRandom rng;
    private final HashMap<Long, Transfer> inflight = new HashMap<>();
    private final ArrayDeque<Transfer> readBacks = new ArrayDeque<>();
    private final CompletionHandler handler = this::onTerminal;
    private final int[] pickRemote;
    private final int[] pickLocal;
    private final long blockLength;

    private volatile State state = State.IDLE;
    private volatile boolean stopRequested;
    private @Nullable Thread thread;
    private int phase;
    private SessionStats stats = new SessionStats();

    /**
     * A session of {@code transport} with the registered peer {@code peerId}, whose block
     * {@code b} holds {@code BlockPattern.seed(family, b)} when the session starts.
     *
     * @param remoteBlocks the peer's block count
     * @param firstLocal the first of the {@link Workload#localBlocksPerPeer()} local blocks this session uses
     * @param rngSeed the seed of the session's random choices
     */
    public PeerSession(DataTransport transport, String peerId, int remoteBlocks, long family, int firstLocal,
            Workload workload, IdLedger ledger, EventSink events, long rngSeed) {
        this(transport, peerId, remoteBlocks, family, firstLocal, workload, ledger, events, rngSeed,
                ChronoUnit.FOREVER.getDuration());
    }

    /**
     * As the other constructor, but a block that a failed transfer touched is used again
     * {@code quarantine} after the failure was reported, instead of never
     * ({@code ChronoUnit.FOREVER.getDuration()} keeps it out for the session's life). For sessions
     * that see many failures by design (a soak that removes its peers every few hundred
     * milliseconds); the time must exceed how long a backend may still land the bytes of a failed
     * transfer.
     */
    public PeerSession(DataTransport transport, String peerId, int remoteBlocks, long family, int firstLocal,
            Workload workload, IdLedger ledger, EventSink events, long rngSeed, Duration quarantine) {
        long settleNanos = quarantine.compareTo(Duration.ofNanos(Quarantine.FOREVER)) >= 0 ? Quarantine.FOREVER
                : quarantine.toNanos();
        this.transport = Objects.requireNonNull(transport, "transport");
        this.peerId = Objects.requireNonNull(peerId, "peerId");
        this.region = transport.region();
        this.workload = Objects.requireNonNull(workload, "workload");
        this.remote = new RemoteBlocks(remoteBlocks, b -> BlockPattern.seed(family, b), settleNanos);
        this.local = new LocalBlocks(firstLocal, workload.localBlocksPerPeer(), settleNanos);
        if (firstLocal < 0 || firstLocal + workload.localBlocksPerPeer() > region.numBlocks()) {
            throw new IllegalArgumentException("local blocks " + firstLocal + ".." + (firstLocal
                    + workload.localBlocksPerPeer() - 1) + " exceed the region of " + region.numBlocks());
        }
        this.ledger = Objects.requireNonNull(ledger, "ledger");
        this.events = Objects.requireNonNull(events, "events");
        this.rng = new SplittableRandom(rngSeed);
        this.pickRemote = new int[workload.maxBlocksPerTransfer()];
        this.pickLocal = new int[workload.maxBlocksPerTransfer()];
        this.blockLength = region.blockLength();
    }

    /** The peer this session streams to. */
    public String peerId() {
        return peerId;
    }

    /** Where the session is now. */
    public State state() {
        return state;
    }

    /** Starts a phase: fresh counters, the same block model. */
    public synchronized void start() {
        if (thread != null) {
            throw new IllegalStateException("session with " + peerId + " is running");
        }
        phase++;
        stats = new SessionStats();
        stopRequested = false;
        state = State.RUNNING;
        thread = Thread.ofPlatform().name("session-" + peerId + "-" + phase).start(this::run);
    }

    /**
     * Ends the phase: no new transfers, waits (up to the workload's drain time) for those in
     * flight, emits {@code STATS} and {@code MODEL}, and returns the phase's counters.
     */
    public synchronized SessionStats stop() throws InterruptedException {
        if (thread == null) {
            return stats;
        }
        stopRequested = true;
        thread.join();
        thread = null;
        state = State.IDLE;
        return stats;
    }

    private void run() {
        SessionStats s = stats;
        long progressNanos = Math.max(1, workload.progressInterval().toNanos());
        long nextProgress = System.nanoTime() + progressNanos;
        long drainEnd = 0;
        boolean draining = false;
        try {
            while (true) {
                if (stopRequested && !draining) {
                    draining = true;
                    drainEnd = System.nanoTime() + workload.drain().toNanos();
                }
                int submitted = state == State.RUNNING ? submitSome(draining) : 0;
                if (state != State.RUNNING) {
                    dropReadBacks();
                }
                int reported = transport.poll(peerId, handler);
                if (state == State.FAILING && inflight.isEmpty()) {
                    s.downAtMillis = System.currentTimeMillis();
                    state = State.DOWN;
                    events.emit("E DOWN peer=" + peerId + " phase=" + phase + " at=" + s.downAtMillis + " "
                            + s.format());
                }
                long now = System.nanoTime();
                if (draining && inflight.isEmpty() && (readBacks.isEmpty() || state != State.RUNNING)) {
                    break;
                }
                if (draining && now - drainEnd > 0) {
                    break;
                }
                if (now - nextProgress > 0) {
                    nextProgress = now + progressNanos;
                    events.emit("E PROGRESS peer=" + peerId + " phase=" + phase + " state=" + state + " "
                            + s.format());
                }
                if (reported == 0 && submitted == 0) {
                    LockSupport.parkNanos(state == State.DOWN ? TimeUnit.MILLISECONDS.toNanos(5)
                            : TimeUnit.MICROSECONDS.toNanos(50));
                }
            }
        } catch (IllegalStateException e) {
            events.emit("E ERR peer=" + peerId + " session ended: " + oneLine(e));
        } catch (RuntimeException | Error e) {
            events.emit("E ERR peer=" + peerId + " session crashed: " + oneLine(e));
            throw e;
        } finally {
            s.lost = inflight.size();
            s.unverifiedWrites += readBacks.size();
            for (Transfer t : readBacks) {
                releaseRemote(t);
            }
            readBacks.clear();
            for (Transfer t : inflight.values()) {
                events.emit("E LOST peer=" + peerId + " op=" + t.op() + " age="
                        + (System.nanoTime() - t.submitNanos()) / 1_000_000);
            }
            inflight.clear();
            events.emit("E STATS peer=" + peerId + " phase=" + phase + " state=" + state + " " + s.format()
                    + " quarantinedRemote=" + remote.quarantinedCount() + " quarantinedLocal="
                    + local.quarantinedCount());
            events.emit("E MODEL peer=" + peerId + " blocks=" + remote.describeKnown());
        }
    }

    /** Fills the window; only read-backs while draining. Returns how many were submitted. */
    private int submitSome(boolean draining) {
        int count = 0;
        while (inflight.size() < workload.maxInflight() && state == State.RUNNING) {
            Transfer t;
            if (!readBacks.isEmpty()) {
                t = prepareReadBack(readBacks.peek());
                if (t == null) {
                    break;
                }
                readBacks.poll();
            } else if (draining) {
                break;
            } else {
                t = prepareRandom();
                if (t == null) {
                    break;
                }
            }
            long id = t.op() == TransferOp.WRITE
                    ? transport.writeBlocks(peerId, t.local(), t.remote())
                    : transport.readBlocks(peerId, t.local(), t.remote());
            if (id == DataTransport.NOT_SUBMITTED) {
                stats.notSubmitted++;
                undo(t);
                firstFailure(-1, t);
                break;
            }
            stats.submitted++;
            if (t.op() == TransferOp.WRITE) {
                stats.writes++;
            } else if (t.readBack()) {
                stats.readBacks++;
            } else {
                stats.reads++;
            }
            inflight.put(id, t);
            count++;
        }
        return count;
    }

    private @Nullable Transfer prepareRandom() {
        int want = 1 + rng.nextInt(workload.maxBlocksPerTransfer());
        boolean read = rng.nextDouble() < workload.readShare();
        int n = remote.take(want, read, rng, pickRemote);
        if (n == 0 && read) {
            read = false;
            n = remote.take(want, false, rng, pickRemote);
        }
        if (n == 0) {
            return null;
        }
        int m = local.take(n, rng, pickLocal);
        if (m < n) {
            for (int i = 0; i < n; i++) {
                remote.release(pickRemote[i]);
            }
            for (int i = 0; i < m; i++) {
                local.release(pickLocal[i]);
            }
            return null;
        }
        int[] r = Arrays.copyOf(pickRemote, n);
        int[] l = Arrays.copyOf(pickLocal, n);
        long[] seeds = new long[n];
        for (int i = 0; i < n; i++) {
            if (read) {
                seeds[i] = remote.seed(r[i]);
            } else {
                seeds[i] = rng.nextLong();
                BlockPattern.fill(region.block(l[i]), seeds[i]);
                remote.writing(r[i]);
            }
        }
        return new Transfer(read ? TransferOp.READ : TransferOp.WRITE, l, r, seeds, false, System.nanoTime());
    }

    /** A READ of the blocks of a completed WRITE (remote blocks still held), or null when no local blocks are free. */
    private @Nullable Transfer prepareReadBack(Transfer write) {
        int n = write.remote().length;
        int m = local.take(n, rng, pickLocal);
        if (m < n) {
            for (int i = 0; i < m; i++) {
                local.release(pickLocal[i]);
            }
            return null;
        }
        return new Transfer(TransferOp.READ, Arrays.copyOf(pickLocal, n), write.remote(), write.seeds(), true,
                System.nanoTime());
    }

    /** Takes back a transfer the transport did not accept: nothing of it moved. */
    private void undo(Transfer t) {
        for (int i = 0; i < t.local().length; i++) {
            local.release(t.local()[i]);
            remote.release(t.remote()[i]);
        }
        if (t.readBack()) {
            stats.unverifiedWrites++;
        }
    }

    private void onTerminal(long id, boolean ok) {
        Transfer t = inflight.remove(id);
        if (t == null) {
            boolean dup = ledger.isReported(id);
            if (dup) {
                stats.dup++;
            } else {
                stats.foreign++;
            }
            events.emit("E UNEXPECTED peer=" + peerId + " id=" + id + " kind=" + (dup ? "dup" : "foreign")
                    + " ok=" + ok);
            return;
        }
        if (!ledger.markReported(id)) {
            stats.dup++;
            events.emit("E UNEXPECTED peer=" + peerId + " id=" + id + " kind=dup ok=" + ok);
        }
        stats.latency((System.nanoTime() - t.submitNanos()) / 1000);
        int n = t.local().length;
        if (ok) {
            stats.done++;
            stats.bytes += n * blockLength;
        } else {
            stats.failed++;
            firstFailure(id, t);
        }
        if (t.op() == TransferOp.WRITE) {
            for (int i = 0; i < n; i++) {
                local.release(t.local()[i]);
            }
            if (ok) {
                stats.writesDone++;
                for (int i = 0; i < n; i++) {
                    remote.written(t.remote()[i], t.seeds()[i]);
                }
                readBacks.add(t); // remote blocks stay held until the read-back verified them
            } else {
                for (int i = 0; i < n; i++) {
                    remote.quarantine(t.remote()[i]);
                    remote.release(t.remote()[i]);
                }
            }
            return;
        }
        if (ok) {
            boolean good = true;
            for (int i = 0; i < n; i++) {
                long at = BlockPattern.firstMismatch(region.block(t.local()[i]), t.seeds()[i]);
                if (at >= 0) {
                    good = false;
                    stats.mismatches++;
                    if (stats.mismatches <= MAX_MISMATCH_EVENTS) {
                        events.emit("E MISMATCH peer=" + peerId + " id=" + id + " readBack=" + t.readBack()
                                + " block=" + t.remote()[i] + " local=" + t.local()[i] + " offset=" + at);
                    }
                } else {
                    stats.verifiedBlocks++;
                }
            }
            if (good) {
                if (t.readBack()) {
                    stats.verifiedWrites++;
                } else {
                    stats.verifiedReads++;
                }
            } else if (t.readBack()) {
                stats.unverifiedWrites++;
            }
            for (int i = 0; i < n; i++) {
                local.release(t.local()[i]);
            }
        } else {
            if (t.readBack()) {
                stats.unverifiedWrites++;
            }
            for (int i = 0; i < n; i++) {
                local.quarantine(t.local()[i]);
            }
        }
        releaseRemote(t);
    }

    private void releaseRemote(Transfer t) {
        for (int b : t.remote()) {
            remote.release(b);
        }
    }

    private void dropReadBacks() {
        while (!readBacks.isEmpty()) {
            Transfer t = readBacks.poll();
            stats.unverifiedWrites++;
            releaseRemote(t);
        }
    }

    private void firstFailure(long id, Transfer t) {
        if (state != State.RUNNING) {
            return;
        }
        state = State.FAILING;
        stats.firstFailureAtMillis = System.currentTimeMillis();
        events.emit("E FAIL peer=" + peerId + " phase=" + phase + " id=" + id + " op=" + t.op() + " at="
                + stats.firstFailureAtMillis + " age=" + (System.nanoTime() - t.submitNanos()) / 1_000_000);
    }

    private static String oneLine(Throwable e) {
        return String.valueOf(e).replace('\n', ' ');
    }
}
