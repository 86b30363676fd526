package io.blockxfer.transport.internal;

import org.jspecify.annotations.Nullable;

/**
 * Everything a managed transport keeps for one peer id: the current registration, the generation
 * that may publish the next one, the transfers in flight, and reports owed to the next poll. A slot with none of these left is dead and leaves the peer map.
 *
 * <p><b>Thread safety:</b> not thread-safe; every field is guarded by the slot's monitor.
 */
public final class PeerSlot {

    public final String peerId;
    public @Nullable Registration registration;
    public long generation;
    public int pendingRegistrations;
    public boolean dead;
    /** The peer has been reported failing; cleared by its next successful transfer. */
    public boolean failing;
    /**
     * Transfers submitted to the current registration, each submit that returned an id; 0 again
     * when a new registration is published.
     */
    public long submitted;
    /** The transfers in flight; while a registration is published, all of them are its own. */
    public final InflightTable inflight = new InflightTable();
    public final IdList owedDone = new IdList();
    public final IdList owedFailures = new IdList();
    /** Scratch for a backend's native telemetry of one transfer. */
    public final long[] nativeTelemetry = new long[4];
    private boolean[] keep = new boolean[16];

    public PeerSlot(String peerId) {
        this.peerId = peerId;
    }

    /** A scratch flag array at least as long as the in-flight table. */
    public boolean[] keepFlags() {
        if (keep.length < inflight.size()) {
            keep = new boolean[Math.max(inflight.size(), keep.length * 2)];
        }
        return keep;
    }

    /** Whether nothing is left to track, so the slot may leave the map. */
    public boolean isIdle() {
        return registration == null && pendingRegistrations == 0 && inflight.size() == 0
                && owedDone.size() == 0 && owedFailures.size() == 0;
    }
}
