package io.blockxfer.ucx.internal;

import io.blockxfer.transport.spi.NotificationSink;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import org.jspecify.annotations.Nullable;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpAmData;
import org.openucx.jucx.ucp.UcpConstants;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucs.UcsConstants;

/**
 * A {@link ProgressLoop}'s notifications as UCX active messages of one id, eager and small: sends
 * a frame on a peer's endpoint from a pooled off-heap buffer (released when UCX is done with it),
 * and receives frames through the worker's handler for that id, which copies each one out inside
 * {@code progress()} and keeps it until the round ends; then {@link #deliverArrived} hands them
 * to the transport's sink, outside every UCX callback. A WRITE's frame is sent only once its
 * flush completed (or its copy to a mapped region was fenced), on the endpoint the puts went
 * through, so it reaches the target after the bytes; the transfer is done when UCX is done with
 * its message, so a receiver that does not drain slows its senders (through their transfers in
 * flight, and, for messages without a transfer, through a bound per peer) instead of piling
 * messages up in UCX.
 *
 * <p><b>Thread safety:</b> owner only: every method but {@link #bind} runs on the current owner of
 * the loop's worker (in a round, a command, or JUCX's callbacks inside them).
 */
final class AmNotifications {

    /** The active message id of blockxfer's notifications. */
    static final int AM_ID = 17;
    /** Buffers kept for reuse at most; each holds the largest frame. */
    private static final int POOL_LIMIT = 256;
    private static final int BUFFER_BYTES = 2048;
    private static final System.Logger LOG = System.getLogger(ProgressLoop.class.getName());

    private final String name;
    private final ArrayDeque<Send> pool = new ArrayDeque<>();
    private final ArrayDeque<byte[]> arrived = new ArrayDeque<>();
    private volatile @Nullable NotificationSink sink;

    /** Registers the receive handler on {@code worker}; called before anyone progresses it. */
    AmNotifications(String name, UcpWorker worker) {
        this.name = name;
        worker.setAmRecvHandler(AM_ID, this::onReceive, UcpConstants.UCP_AM_FLAG_WHOLE_MSG);
    }

    /** Where received frames go from now on; any thread. */
    void bind(NotificationSink sink) {
        this.sink = sink;
    }

    /** What ends when UCX is done with a transfer's notification. */
    interface TransferNotified {
        /** The notification of {@code t} (filled as {@code epoch}) left ({@code sent}) or failed. */
        void notified(UcxTransfer t, int epoch, boolean sent);
    }

    private @Nullable TransferNotified transfers;

    /** Who learns that a transfer's notification left; the tracker, once (owner). */
    void onTransferNotified(TransferNotified transfers) {
        this.transfers = transfers;
    }

    /**
     * A pooled send: its buffer stays untouched until UCX says it is done with it; then it ends
     * what it carried: a transfer (done once its message left) or a message without a transfer
     * (its peer's count of messages in flight).
     */
    private final class Send extends UcxCallback {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER_BYTES);
        final long address = UcxUtils.getAddress(buffer);
        @Nullable UcxTransfer transfer;
        int epoch;
        @Nullable UcxPeer messagePeer;

        @Override
        public void onSuccess(UcpRequest request) {
            ended(this, true);
        }

        @Override
        public void onError(int status, String message) {
            LOG.log(Level.DEBUG, () -> name + ": a notification was not delivered: " + message);
            ended(this, false);
        }
    }

    private void ended(Send s, boolean sent) {
        UcxTransfer t = s.transfer;
        int epoch = s.epoch;
        UcxPeer p = s.messagePeer;
        s.transfer = null;
        s.messagePeer = null;
        if (pool.size() < POOL_LIMIT) {
            pool.addFirst(s);
        }
        try {
            if (t != null && transfers != null) {
                transfers.notified(t, epoch, sent);
            }
            if (p != null) {
                p.messageEnded();
            }
        } catch (RuntimeException | Error e) {
            // never let an exception unwind into UCX
            LOG.log(Level.ERROR, name + ": ending a notification failed", e);
        }
    }

    /**
     * Sends a transfer's notification on {@code endpoint}; the transfer ends when UCX is done with
     * it ({@link TransferNotified}).
     *
     * @return false when UCX did not take it: the caller ends the transfer
     */
    boolean sendFor(UcpEndpoint endpoint, UcxTransfer t) {
        byte[] frame = t.notification;
        return frame != null && send(endpoint, frame, t, null);
    }

    /**
     * Sends a message without a transfer on {@code endpoint}; {@code peer}'s count of messages in
     * flight goes down when UCX is done with it.
     *
     * @return false when UCX did not take it: the caller counts it off
     */
    boolean sendMessage(UcpEndpoint endpoint, byte[] frame, UcxPeer peer) {
        return send(endpoint, frame, null, peer);
    }

    private boolean send(UcpEndpoint endpoint, byte[] frame, @Nullable UcxTransfer t, @Nullable UcxPeer peer) {
        if (frame.length > BUFFER_BYTES) {
            LOG.log(Level.WARNING, () -> name + ": a notification frame of " + frame.length + " B does not fit");
            return false;
        }
        Send s = pool.pollFirst();
        if (s == null) {
            s = new Send();
        }
        MemorySegment.ofBuffer(s.buffer).copyFrom(MemorySegment.ofArray(frame));
        s.transfer = t;
        s.epoch = t == null ? 0 : t.epoch;
        s.messagePeer = peer;
        try {
            endpoint.sendAmNonBlocking(AM_ID, 0, 0, s.address, frame.length, UcpConstants.UCP_AM_SEND_FLAG_EAGER, s);
            return true;
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, () -> name + ": sending a notification failed: " + UcsStatus.describe(e));
            // JUCX calls the callback when UCX returned the error, which ended what it carried
            if (UcsStatus.statusOf(e, UcsStatus.OK) != UcsStatus.OK) {
                return true;
            }
            s.transfer = null;
            s.messagePeer = null;
            if (pool.size() < POOL_LIMIT) {
                pool.addFirst(s);
            }
            return false;
        }
    }

    /** The worker's handler: copies the frame out (it is only valid during this call). */
    @SuppressWarnings("restricted") // UCX hands the message's address and length; read within them only
    private int onReceive(long headerAddress, long headerSize, UcpAmData data, UcpEndpoint replyEp) {
        try {
            if (data.isDataValid() && data.getLength() <= BUFFER_BYTES) {
                arrived.addLast(MemorySegment.ofAddress(data.getDataAddress()).reinterpret(data.getLength())
                        .toArray(ValueLayout.JAVA_BYTE));
            } else {
                LOG.log(Level.WARNING, () -> name + ": dropped a notification of " + data.getLength() + " B that did"
                        + " not arrive whole and eager");
            }
        } catch (RuntimeException | Error e) {
            // never let an exception unwind into UCX's progress
            LOG.log(Level.ERROR, name + ": receiving a notification failed", e);
        }
        return UcsConstants.STATUS.UCS_OK;
    }

    /** Hands what arrived in this round to the sink, outside UCX's callbacks; how many. */
    int deliverArrived() {
        if (arrived.isEmpty()) {
            return 0;
        }
        NotificationSink s = sink;
        int n = 0;
        byte[] frame;
        while ((frame = arrived.pollFirst()) != null) {
            n++;
            if (s != null) {
                s.received(frame, null, null);
            }
        }
        return n;
    }
}
