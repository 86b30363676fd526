package io.blockxfer.ucx.internal;

import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.spi.TransferEngine;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpRemoteKey;

/**
 * Issues the transfers of a {@link ProgressLoop} and ends each one when UCX ended its requests.
 * With a peer whose region is mapped here a transfer is a copy ({@link MappedCopier}), ended at
 * once. With any other peer a WRITE is one implicit put per contiguous run of blocks plus one
 * flush of the write endpoint, and a READ one get per run on the peer's read endpoint. The
 * transfer's pooled {@link OpCallback} counts the requests UCX still holds (plus a guard while
 * they are being issued); the last to end ends the transfer with the first error any of them had,
 * and an error fails the peer. While in flight a transfer is linked to its peer, so that a peer
 * whose endpoints closed fails what UCX did not end ({@link #failInFlight}).
 *
 * <p><b>Thread safety:</b> owner only: every method runs on the current owner of the loop's worker
 * (issuing in a command, request ends in JUCX's callbacks inside {@code progress()} or the call
 * that started the request); the callback pool and the count of transfers in flight pass from
 * owner to owner with the worker.
 */
final class RequestTracker {

    /** The loop's parts log under the loop's name. */
    private static final System.Logger LOG = System.getLogger(ProgressLoop.class.getName());

    private final String name;
    private final long localBase;
    private final long blockLength;
    private final PeerConnections peers;
    private final MappedCopier copier;
    private final EndSignal ends;
    private final AmNotifications notifications;

    // ---- owner only
    private final ArrayDeque<OpCallback> callbacks = new ArrayDeque<>();
    /** Transfers whose requests ended well and whose notification goes out after this round's progress. */
    private final ArrayDeque<UcxTransfer> notificationsDue = new ArrayDeque<>();
    private int inFlight;

    /**
     * Transfers between the region {@code local} of blocks of {@code blockLength} bytes and the
     * regions of {@code peers}, with copies by {@code copier} where a peer's region is mapped here;
     * every transfer that ends is noted to {@code ends}.
     */
    RequestTracker(String name, MemorySegment local, long blockLength, PeerConnections peers, MappedCopier copier,
            EndSignal ends, AmNotifications notifications) {
        this.name = name;
        this.notifications = notifications;
        notifications.onTransferNotified(this::notified);
        this.localBase = local.address();
        this.blockLength = blockLength;
        this.peers = peers;
        this.copier = copier;
        this.ends = ends;
    }

    /**
     * Issues a transfer: with a mapped peer, a copy per contiguous run of blocks, ended at once;
     * otherwise a WRITE as one implicit put per run and one flush of the write endpoint, and a READ
     * as one get request per run on the read endpoint. Reads get their own endpoint because UCX 1.18
     * crashes (in {@code ucp_ep_flush_progress}) when an endpoint is force-closed while a flush
     * waits behind software-emulated gets.
     */
    void issue(UcxTransfer t) {
        UcxPeer p = Objects.requireNonNull(t.peer, "a queued transfer has its peer");
        boolean write = t.op == TransferOp.WRITE;
        if (!p.usable() || p.closing) {
            t.status = TransferEngine.FAILED;
            ends.ended();
            return;
        }
        MemorySegment mapped = p.mapped;
        if (mapped != null) {
            copier.copy(mapped, t, write);
            return;
        }
        PeerEndpoint pe = write ? p.writes : peers.readEndpoint(p);
        if (pe == null) {
            t.status = TransferEngine.FAILED;
            ends.ended();
            return;
        }
        OpCallback cb = callbacks.pollFirst();
        if (cb == null) {
            cb = new OpCallback(this);
        }
        cb.transfer = t;
        cb.endpoint = pe;
        cb.pending = 1; // the issuing guard
        t.callback = cb;
        p.link(t);
        inFlight++;
        UcpEndpoint ep = pe.endpoint;
        UcpRemoteKey rkey = pe.rkey();
        int[] l = t.localBlocks;
        int[] r = t.remoteBlocks;
        int n = t.count;
        RuntimeException failure = null;
        try {
            int i = 0;
            while (i < n) {
                int run = 1;
                while (i + run < n && l[i + run] == l[i] + run && r[i + run] == r[i] + run) {
                    run++;
                }
                long localAddress = localBase + l[i] * blockLength;
                long remote = p.remoteBase + r[i] * blockLength;
                long bytes = run * blockLength;
                if (write) {
                    ep.putNonBlockingImplicit(localAddress, bytes, remote, rkey);
                } else {
                    cb.pending++;
                    pe.outstanding++;
                    try {
                        ep.getNonBlocking(remote, rkey, localAddress, bytes, cb);
                    } catch (RuntimeException e) {
                        untrack(cb, pe, e);
                        throw e;
                    }
                }
                i += run;
            }
        } catch (RuntimeException e) {
            failure = e;
        }
        if (write) {
            // also after a failed put: the flush covers the puts issued before it
            cb.pending++;
            pe.outstanding++;
            try {
                ep.flushNonBlocking(cb);
            } catch (RuntimeException e) {
                untrack(cb, pe, e);
                if (failure == null) {
                    failure = e;
                }
            }
        }
        if (failure != null) {
            // the transfer fails once UCX ended what was issued of it; the peer takes no more now
            int status = UcsStatus.statusOf(failure, UcsStatus.CONNECTION_RESET);
            String what = (write ? "put: " : "get: ") + UcsStatus.describe(failure);
            if (cb.error == UcsStatus.OK) {
                cb.error = status;
                cb.errorMessage = what;
            }
            peers.peerFailed(p, status, what);
        }
        requestEnded(cb, UcsStatus.OK, null); // releases the issuing guard
    }

    /**
     * A request call threw: when UCX returned the error (the exception carries its status), JUCX
     * has already called the callback, which counted the request off; otherwise JUCX never took the
     * request, and it is counted off here.
     */
    private static void untrack(OpCallback cb, PeerEndpoint pe, RuntimeException e) {
        if (UcsStatus.statusOf(e, UcsStatus.OK) == UcsStatus.OK) {
            cb.pending--;
            pe.outstanding--;
        }
    }

    /**
     * One request of a transfer ended (or the issuing guard was released): the last one ends the
     * transfer, with the first error any of them had, unless it ended already.
     */
    void requestEnded(OpCallback cb, int status, @Nullable String message) {
        try {
            if (status != UcsStatus.OK && cb.error == UcsStatus.OK) {
                cb.error = status;
                cb.errorMessage = message;
            }
            if (--cb.pending > 0) {
                return;
            }
            UcxTransfer t = cb.transfer;
            int error = cb.error;
            String errorMessage = cb.errorMessage;
            cb.transfer = null;
            cb.endpoint = null;
            cb.error = UcsStatus.OK;
            cb.errorMessage = null;
            callbacks.addFirst(cb);
            if (t == null || t.callback != cb) {
                return;
            }
            // read before complete(): once its status is out, the engine may recycle and refill it
            UcxPeer p = Objects.requireNonNull(t.peer, "a transfer with requests has its peer");
            boolean write = t.op == TransferOp.WRITE;
            if (error == UcsStatus.OK && t.notification != null) {
                // its notification goes out after this round's progress, outside UCX's callbacks
                notificationsDue.addLast(t);
                return;
            }
            complete(t, error == UcsStatus.OK ? TransferEngine.DONE : TransferEngine.FAILED);
            if (error != UcsStatus.OK && error != UcsStatus.CANCELED) {
                peers.peerFailed(p, error, (write ? "flush: " : "get: ") + errorMessage);
            }
        } catch (RuntimeException | Error e) {
            // never let an exception unwind into UCX's progress
            LOG.log(Level.ERROR, name + ": request completion failed", e);
        }
    }

    /** Ends a transfer once; a callback still registered with UCX is detached, not reused. */
    private void complete(UcxTransfer t, int status) {
        if (t.linked) {
            Objects.requireNonNull(t.peer, "a linked transfer has its peer").unlink(t);
            inFlight--;
        }
        if (t.status != TransferEngine.PENDING) {
            return;
        }
        OpCallback cb = t.callback;
        if (cb != null) {
            t.callback = null;
            if (cb.transfer == t) {
                cb.transfer = null;
            }
        }
        t.status = status;
        ends.ended();
    }

    /**
     * Sends the notification of each transfer whose requests ended well in this round, on its peer's
     * write endpoint (after a WRITE's flush: its bytes are visible there); the transfer is done when
     * UCX is done with the message ({@link #notified}), failed at once when UCX did not take it.
     * Returns how many it handled.
     */
    int sendDueNotifications() {
        int n = 0;
        UcxTransfer t;
        while ((t = notificationsDue.pollFirst()) != null) {
            if (t.status != TransferEngine.PENDING) {
                continue; // its peer failed it meanwhile
            }
            UcxPeer p = t.peer;
            PeerEndpoint pe = p == null || !p.usable() ? null : p.writes;
            if (pe == null || !notifications.sendFor(pe.endpoint, t)) {
                complete(t, TransferEngine.FAILED);
            }
            n++;
        }
        return n;
    }

    /**
     * UCX is done with the notification of {@code t} as filled for {@code epoch}: the transfer is
     * done when it left, failed otherwise; nothing when the transfer already ended another way (its
     * peer failed) or was reused since.
     */
    private void notified(UcxTransfer t, int epoch, boolean sent) {
        if (t.status != TransferEngine.PENDING || t.epoch != epoch) {
            return;
        }
        complete(t, sent ? TransferEngine.DONE : TransferEngine.FAILED);
    }

    /** Fails what is still linked to a peer whose endpoints closed (UCX did not end it on its own). */
    void failInFlight(UcxPeer p) {
        while (p.first != null) {
            complete(p.first, TransferEngine.FAILED);
        }
    }

    /** Whether transfers issued as UCX requests have not ended yet. */
    boolean anyInFlight() {
        return inFlight > 0;
    }
}
