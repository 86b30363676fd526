package io.blockxfer.transport.internal;

import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.TransferFuture;
import io.blockxfer.transport.spi.TransferEngine;
import java.util.Arrays;
import java.util.List;

/**
 * Both cancel modes. {@link CancelMode#IMMEDIATE} stops tracking the ids: terminal handles are
 * released, the rest are adopted as orphans. {@link CancelMode#WAIT} releases what is terminal and
 * returns the ids still in flight, which stay tracked and surface in a later poll. The future of an
 * asynchronous transfer that a cancel releases is cancelled; one that a wait cancel returns
 * completes when the transfer ends.
 *
 * <p><b>Thread safety:</b> thread-safe; takes each peer's lock in turn, never two at once.
 */
public final class Canceller {

    private static final long[] NO_IDS = new long[0];

    private final PeerTable peers;
    private final TransportState state;
    private final GuardedEngine engine;
    private final OrphanKeeper orphans;
    private final AsyncCompletions async;
    private final Telemetry telemetry;

    public Canceller(PeerTable peers, TransportState state, GuardedEngine engine, OrphanKeeper orphans,
            AsyncCompletions async, Telemetry telemetry) {
        this.peers = peers;
        this.state = state;
        this.engine = engine;
        this.orphans = orphans;
        this.async = async;
        this.telemetry = telemetry;
    }

    /** Cancels {@code ids} (the caller checked the arguments); returns the ids still in flight. */
    public long[] cancel(long[] ids, CancelMode mode) {
        state.ensureOpen();
        if (ids.length == 0) {
            return NO_IDS;
        }
        long[] sorted = ids.clone();
        Arrays.sort(sorted);
        IdList stillInFlight = mode == CancelMode.WAIT ? new IdList() : null;
        List<Object> toDisconnect = null;
        int cancelled = 0;
        for (PeerSlot slot : peers.all()) {
            synchronized (slot) {
                if (slot.dead || !state.isOpen()) {
                    continue;
                }
                cancelled += slot.owedDone.removeAll(sorted);
                cancelled += slot.owedFailures.removeAll(sorted);
                InflightTable table = slot.inflight;
                boolean[] keep = slot.keepFlags();
                boolean removed = false;
                for (int i = 0; i < table.size(); i++) {
                    keep[i] = true;
                    if (Arrays.binarySearch(sorted, table.id(i)) < 0) {
                        continue;
                    }
                    Object handle = table.handle(i);
                    TransferFuture future = table.future(i);
                    if (engine.status(handle) == TransferEngine.PENDING) {
                        if (stillInFlight != null) {
                            stillInFlight.add(table.id(i));
                            continue;
                        }
                        if (future != null) {
                            async.cancelled(future);
                        }
                        telemetry.cancelled(slot.peerId, table.id(i), table.op(i), true);
                        orphans.adopt(handle, table.registration(i));
                    } else {
                        if (future != null) {
                            async.cancelled(future);
                        }
                        telemetry.cancelled(slot.peerId, table.id(i), table.op(i), false);
                        toDisconnect = engine.release(handle, table.registration(i), toDisconnect);
                    }
                    keep[i] = false;
                    removed = true;
                    cancelled++;
                }
                if (removed) {
                    table.compact(keep);
                }
                peers.buryIfIdle(slot);
            }
        }
        engine.disconnectAll(toDisconnect);
        orphans.reap();
        async.completeReady();
        telemetry.cancelCall(mode, ids.length, cancelled, stillInFlight == null ? 0 : stillInFlight.size());
        return stillInFlight == null || stillInFlight.size() == 0 ? NO_IDS
                : Arrays.copyOf(stillInFlight.array(), stillInFlight.size());
    }
}
