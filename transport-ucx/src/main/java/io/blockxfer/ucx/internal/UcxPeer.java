package io.blockxfer.ucx.internal;

import java.lang.foreign.MemorySegment;
import org.jspecify.annotations.Nullable;

/**
 * One registered peer: the region its descriptor advertised, its metadata, its endpoints (one for
 * writes, built at registration; one for reads that UCX serves, built on the first such READ, so
 * that a write's flush never waits on reads), where its region is mapped in this process when it
 * is (READs then copy from it; see {@link PeerMapping}), its transfers in flight, and whether it
 * can still take transfers.
 *
 * <p><b>Thread safety:</b> the identity fields are final; {@link #state}, {@link #aborted},
 * {@link #failure} and {@link #mapped} are volatile, {@link #mapped} written once by the
 * registering thread before the peer is handed out, the others read by submitters and written by
 * the loop (the abort flag by whoever aborts); everything else belongs to the owner of the loop's
 * worker.
 */
final class UcxPeer {

    /** Takes transfers. */
    static final int ALIVE = 0;
    /** Its endpoint failed (peer died, or the connection broke). */
    static final int FAILED = 1;
    /** Its endpoints were force-closed on request. */
    static final int ABORTED = 2;
    /** Disconnected. */
    static final int CLOSED = 3;

    final String peerId;
    final long remoteBase;
    final int numBlocks;
    final UcxMetadata metadata;

    volatile int state = ALIVE;
    volatile boolean aborted;
    volatile String failure = "";
    /** The peer's region as mapped in this process, or null; used only while the peer is not closing. */
    volatile @Nullable MemorySegment mapped;
    /** Messages without a transfer handed to the engine that UCX has not finished with. */
    final java.util.concurrent.atomic.AtomicInteger messagesInFlight = new java.util.concurrent.atomic.AtomicInteger();

    // ---- owner of the loop's worker only
    @Nullable PeerEndpoint writes;
    @Nullable PeerEndpoint reads;
    boolean closing;
    long closeStartedNanos;
    boolean slowCloseLogged;
    boolean disconnectRequested;
    @Nullable UcxTransfer first;
    @Nullable UcxTransfer last;
    int inFlight;

    UcxPeer(String peerId, long remoteBase, int numBlocks, UcxMetadata metadata) {
        this.peerId = peerId;
        this.remoteBase = remoteBase;
        this.numBlocks = numBlocks;
        this.metadata = metadata;
    }

    /** A message without a transfer to this peer ended (sent, refused or dropped); any thread. */
    void messageEnded() {
        messagesInFlight.decrementAndGet();
    }

    /** Whether transfers may be issued: alive and not aborted. */
    boolean usable() {
        return state == ALIVE && !aborted;
    }

    /** Whether every endpoint that was opened has finished closing. */
    boolean endpointsClosed() {
        return (writes == null || writes.isClosed()) && (reads == null || reads.isClosed());
    }

    void link(UcxTransfer t) {
        t.linked = true;
        t.prev = last;
        t.next = null;
        if (last == null) {
            first = t;
        } else {
            last.next = t;
        }
        last = t;
        inFlight++;
    }

    void unlink(UcxTransfer t) {
        if (!t.linked) {
            return;
        }
        if (t.prev == null) {
            first = t.next;
        } else {
            t.prev.next = t.next;
        }
        if (t.next == null) {
            last = t.prev;
        } else {
            t.next.prev = t.prev;
        }
        t.prev = null;
        t.next = null;
        t.linked = false;
        inFlight--;
    }

    @Override
    public String toString() {
        return "peer '" + peerId + "'";
    }
}
