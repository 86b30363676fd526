package io.blockxfer.transport.internal;

import static io.blockxfer.transport.internal.TransportLog.LOG;

import io.blockxfer.transport.CompletionHandler;
import io.blockxfer.transport.PeerTraffic;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.TransferFuture;
import io.blockxfer.transport.spi.TransferEngine;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Turns transfers in flight into terminal reports: the scoped and unscoped polls (each first lets
 * the polling thread drive the engine), the completion thread's harvest, the transfer deadline (an
 * overdue transfer is failed and its peer's connection aborted), and the end of a registration's
 * transfers when the peer is removed or replaced, and what a peer has in flight ({@link #traffic}).
 * Asynchronous transfers end in their futures ({@link AsyncCompletions}) instead of in reports.
 *
 * <p>Every id lives in exactly one place: its peer's in-flight table, its peer's owed reports (a
 * polled transfer), the queue of futures to complete (an asynchronous one), or nowhere. A handle
 * leaves the table released (terminal) or adopted by the {@link OrphanKeeper}.
 *
 * <p><b>Thread safety:</b> thread-safe; each peer's state is guarded by its slot's monitor, so
 * polls of different peers never contend. Polls allocate nothing in the steady state (their ids
 * go through a per-thread {@link CompletionScratch}).
 */
public final class CompletionTracker {

    private final PeerTable peers;
    private final TransportState state;
    private final GuardedEngine engine;
    private final OrphanKeeper orphans;
    private final AsyncCompletions async;
    private final CompletionWaiters waiters;
    private final PeerHealth health;
    private final Telemetry telemetry;
    private final long blockLength;
    private final long transferTimeoutNanos;
    private final String label;

    public CompletionTracker(PeerTable peers, TransportState state, GuardedEngine engine, OrphanKeeper orphans,
            AsyncCompletions async, CompletionWaiters waiters, PeerHealth health, Telemetry telemetry,
            long blockLength, long transferTimeoutNanos, String label) {
        this.peers = peers;
        this.state = state;
        this.engine = engine;
        this.orphans = orphans;
        this.async = async;
        this.waiters = waiters;
        this.health = health;
        this.telemetry = telemetry;
        this.blockLength = blockLength;
        this.transferTimeoutNanos = transferTimeoutNanos;
        this.label = label;
    }

    /** How long a transfer may stay in flight. */
    public long transferTimeoutNanos() {
        return transferTimeoutNanos;
    }

    // ------------------------------------------------------------------ polls

    /** The terminal reports of one peer. The caller checked the arguments. */
    public PollResult poll(String peerId) {
        state.ensureOpen();
        CompletionScratch scratch = CompletionScratch.acquire();
        collectOrRelease(peerId, scratch);
        return scratch.toResult();
    }

    /** The terminal reports of one peer, to {@code handler}. The caller checked the arguments. */
    public int poll(String peerId, CompletionHandler handler) {
        state.ensureOpen();
        CompletionScratch scratch = CompletionScratch.acquire();
        collectOrRelease(peerId, scratch);
        return scratch.deliver(handler);
    }

    /** The terminal reports of every peer. */
    public PollResult pollAll() {
        state.ensureOpen();
        CompletionScratch scratch = CompletionScratch.acquire();
        collectOrRelease(null, scratch);
        return scratch.toResult();
    }

    /** The terminal reports of every peer, to {@code handler}. */
    public int pollAll(CompletionHandler handler) {
        state.ensureOpen();
        CompletionScratch scratch = CompletionScratch.acquire();
        collectOrRelease(null, scratch);
        return scratch.deliver(handler);
    }

    private void collectOrRelease(@Nullable String peerId, CompletionScratch scratch) {
        try {
            collect(peerId, scratch);
        } catch (RuntimeException | Error e) {
            scratch.release();
            throw e;
        }
    }

    /**
     * One poll into {@code out}, without delivering: lets the calling thread drive the engine,
     * takes the reports of {@code peerId} (every peer when null) and notes the earliest start of
     * what stays in flight; completes the futures of asynchronous transfers it found terminal
     * after releasing the locks.
     *
     * @return false if {@code peerId} is not known (no registration, transfers or reports)
     * @throws IllegalStateException if the transport is closed
     */
    public boolean collect(@Nullable String peerId, CompletionScratch out) {
        state.ensureOpen();
        engine.progress();
        boolean known = true;
        if (peerId == null) {
            for (PeerSlot slot : peers.all()) {
                pollSlot(slot, out, false);
            }
        } else {
            PeerSlot slot = peers.get(peerId);
            if (slot == null) {
                known = false;
                if (orphans.isEmpty()) {
                    async.completeReady();
                    return false;
                }
            } else {
                pollSlot(slot, out, false);
            }
        }
        orphans.reap();
        async.completeReady();
        return known;
    }

    /**
     * For the completion thread: finds the transfers of every peer that became terminal, moves
     * those of polled transfers into their peer's owed reports (released now, reported by the
     * next poll or wait of the peer) and completes the futures of asynchronous ones, fails overdue
     * transfers, and signals waiting callers when it moved anything. {@code stats} gets the
     * earliest start of what stays in flight.
     *
     * @param drive whether to let this thread drive the engine first ({@link TransferEngine#progress})
     * @return how many transfers it found terminal
     */
    public int harvest(boolean drive, CompletionScratch stats) {
        if (!state.isOpen()) {
            return 0;
        }
        if (drive) {
            engine.progress();
        }
        int found = 0;
        for (PeerSlot slot : peers.all()) {
            found += pollSlot(slot, stats, true);
        }
        orphans.reap();
        async.completeReady();
        if (found > 0) {
            waiters.signal();
        }
        return found;
    }

    /**
     * For a thread blocked on a future of {@code peerId}: {@link #harvest} of that one peer, the
     * calling thread driving the engine first.
     *
     * @return false if the transport is closed or {@code peerId} has no slot (its transfers were
     *     ended by its removal, and their futures completed)
     */
    public boolean harvest(String peerId, CompletionScratch stats) {
        if (!state.isOpen()) {
            return false;
        }
        engine.progress();
        PeerSlot slot = peers.get(peerId);
        int found = slot == null ? 0 : pollSlot(slot, stats, true);
        orphans.reap();
        async.completeReady();
        if (found > 0) {
            waiters.signal();
        }
        return slot != null;
    }

    /**
     * What the current registration of {@code peerId} has submitted and still has in flight: the
     * transfers of its table whose engine status is still pending, whether or not a poll found
     * them ended (a status read per transfer in the table; nothing is reported, released or
     * harvested, so the next poll still reports each once); empty when it has no registration.
     * The caller checked the argument.
     *
     * @throws IllegalStateException if the transport is closed
     */
    public Optional<PeerTraffic> traffic(String peerId) {
        state.ensureOpen();
        PeerSlot slot = peers.get(peerId);
        if (slot == null) {
            return Optional.empty();
        }
        long submitted;
        int inFlight;
        synchronized (slot) {
            state.ensureOpen();
            if (slot.registration == null) {
                return Optional.empty();
            }
            // retiring a registration takes its transfers out of the table, so what is left is the
            // published registration's own
            submitted = slot.submitted;
            InflightTable table = slot.inflight;
            inFlight = 0;
            for (int i = 0; i < table.size(); i++) {
                if (engine.status(table.handle(i)) == TransferEngine.PENDING) {
                    inFlight++;
                }
            }
        }
        return Optional.of(new PeerTraffic(submitted, inFlight));
    }

    /** Completes the futures of asynchronous transfers that ended; call it holding no lock. */
    public void completeReady() {
        async.completeReady();
    }

    /**
     * Takes the slot's owed reports (unless harvesting) and its transfers that are terminal or
     * overdue. Polled transfers go to {@code out}, or to the owed reports when harvesting;
     * asynchronous ones to their futures.
     *
     * @return how many transfers of the table ended
     */
    private int pollSlot(PeerSlot slot, CompletionScratch out, boolean harvest) {
        List<Object> toDisconnect = null;
        int found = 0;
        synchronized (slot) {
            if (slot.dead || !state.isOpen()) {
                return 0;
            }
            if (!harvest) {
                IdList owed = slot.owedDone;
                for (int i = 0; i < owed.size(); i++) {
                    out.add(owed.get(i), true);
                }
                owed.clear();
                owed = slot.owedFailures;
                for (int i = 0; i < owed.size(); i++) {
                    out.add(owed.get(i), false);
                }
                owed.clear();
            }
            InflightTable table = slot.inflight;
            int n = table.size();
            if (n > 0) {
                boolean[] keep = slot.keepFlags();
                long now = System.nanoTime();
                int expired = 0;
                boolean removed = false;
                for (int i = 0; i < n; i++) {
                    Object handle = table.handle(i);
                    int status = engine.status(handle);
                    if (status == TransferEngine.PENDING) {
                        keep[i] = true;
                        if (now - table.startNanos(i) > transferTimeoutNanos) {
                            expired++;
                        } else {
                            out.pending(table.startNanos(i));
                        }
                        continue;
                    }
                    keep[i] = false;
                    removed = true;
                    found++;
                    boolean success = status == TransferEngine.DONE;
                    long id = table.id(i);
                    end(slot, out, harvest, table.future(i), id, success, null);
                    if (success) {
                        health.recovered(slot);
                        if (telemetry.wantsNativeTelemetry() && engine.nativeTelemetry(handle, slot.nativeTelemetry)) {
                            telemetry.nativeTelemetry(slot.peerId, id, slot.nativeTelemetry);
                        }
                    } else {
                        health.failed(slot, "transfer " + id, null);
                    }
                    telemetry.ended(slot.peerId, id, table.op(i), table.blocks(i), table.blocks(i) * blockLength,
                            now - table.startNanos(i), success);
                    toDisconnect = engine.release(handle, table.registration(i), toDisconnect);
                }
                if (expired > 0) {
                    toDisconnect = expireLocked(slot, keep, now, out, harvest, toDisconnect);
                    removed = true;
                    found += expired;
                }
                if (removed) {
                    table.compact(keep);
                }
            }
            peers.buryIfIdle(slot);
        }
        engine.disconnectAll(toDisconnect);
        return found;
    }

    /** Hands one ended transfer to its future, its peer's owed reports (harvesting) or the poll. */
    private void end(PeerSlot slot, CompletionScratch out, boolean harvest, @Nullable TransferFuture future, long id,
            boolean success, @Nullable String why) {
        if (future != null) {
            async.ended(future, success, why);
        } else if (harvest) {
            (success ? slot.owedDone : slot.owedFailures).add(id);
        } else {
            out.add(id, success);
        }
    }

    // ------------------------------------------------------------------ deadlines

    /**
     * Fails every transfer of the slot past its deadline: aborts the peer's connection, releases
     * what became terminal and orphans the rest.
     */
    private @Nullable List<Object> expireLocked(PeerSlot slot, boolean[] keep, long now, CompletionScratch out,
            boolean harvest, @Nullable List<Object> toDisconnect) {
        InflightTable table = slot.inflight;
        @Nullable Registration aborted = null;
        for (int i = 0; i < table.size(); i++) {
            if (keep[i] && now - table.startNanos(i) > transferTimeoutNanos && table.registration(i) != aborted) {
                aborted = table.registration(i);
                engine.abort(aborted);
            }
        }
        health.missedDeadline(slot, transferTimeoutNanos);
        for (int i = 0; i < table.size(); i++) {
            if (!keep[i] || now - table.startNanos(i) <= transferTimeoutNanos) {
                continue;
            }
            keep[i] = false;
            end(slot, out, harvest, table.future(i), table.id(i), false, "missed its deadline of "
                    + transferTimeoutNanos / 1_000_000 + " ms; the peer's connection was aborted");
            telemetry.ended(slot.peerId, table.id(i), table.op(i), table.blocks(i), table.blocks(i) * blockLength,
                    now - table.startNanos(i), false);
            Object handle = table.handle(i);
            if (engine.status(handle) == TransferEngine.PENDING) {
                orphans.adopt(handle, table.registration(i));
            } else {
                toDisconnect = engine.release(handle, table.registration(i), toDisconnect);
            }
        }
        return toDisconnect;
    }

    // ------------------------------------------------------------------ retired registrations

    /**
     * Takes a registration out of service: owes the next poll a report of each of its transfers
     * (done if it had completed, otherwise failed), aborts the connection if any is still in
     * flight, and keeps the handles that are not terminal yet as orphans. States are read before
     * the abort, so a transfer that completed but was not yet polled is reported done even where
     * the native layer forgets a finished request's outcome when its connection is torn down. The
     * caller holds the slot's monitor, and calls {@link #completeReady()} after releasing it.
     *
     * @return the engine peer handle to disconnect now (outside the lock), or null if transfers
     *     still hold it
     */
    public @Nullable Object retireLocked(PeerSlot slot, Registration reg, String why) {
        InflightTable table = slot.inflight;
        int ended = 0;
        if (table.size() > 0) {
            long now = System.nanoTime();
            boolean[] keep = slot.keepFlags();
            int[] states = new int[table.size()]; // not the hot path: a peer is removed or replaced
            boolean anyPending = false;
            for (int i = 0; i < table.size(); i++) {
                keep[i] = table.registration(i) != reg;
                if (!keep[i]) {
                    states[i] = engine.status(table.handle(i));
                    anyPending |= states[i] == TransferEngine.PENDING;
                }
            }
            if (anyPending) {
                engine.abort(reg);
            }
            for (int i = 0; i < table.size(); i++) {
                if (!keep[i]) {
                    ended++;
                    Object handle = table.handle(i);
                    int status = states[i];
                    telemetry.ended(slot.peerId, table.id(i), table.op(i), table.blocks(i),
                            table.blocks(i) * blockLength, now - table.startNanos(i), status == TransferEngine.DONE);
                    TransferFuture future = table.future(i);
                    if (future != null) {
                        async.ended(future, status == TransferEngine.DONE, "its peer was " + why);
                    } else {
                        (status == TransferEngine.DONE ? slot.owedDone : slot.owedFailures).add(table.id(i));
                    }
                    if (status == TransferEngine.PENDING) {
                        orphans.adopt(handle, reg);
                    } else {
                        engine.release(handle);
                        reg.transferReleased();
                    }
                }
            }
            table.compact(keep);
        }
        LOG.log(Level.DEBUG, "{0}: peer ''{1}'' {2}", label, slot.peerId, why);
        telemetry.removed(slot.peerId, why, ended);
        return reg.retire() ? reg.peer() : null;
    }
}
