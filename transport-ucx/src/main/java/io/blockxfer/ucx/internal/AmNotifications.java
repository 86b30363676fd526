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
 * through, so it reaches the target after the bytes.
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

    /** A pooled send: its buffer stays untouched until UCX says it is done with it. */
    private final class Send extends UcxCallback {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER_BYTES);
        final long address = UcxUtils.getAddress(buffer);

        @Override
        public void onSuccess(UcpRequest request) {
            recycle(this);
        }

        @Override
        public void onError(int status, String message) {
            LOG.log(Level.DEBUG, () -> name + ": a notification was not delivered: " + message);
            recycle(this);
        }
    }

    private void recycle(Send s) {
        if (pool.size() < POOL_LIMIT) {
            pool.addFirst(s);
        }
    }

    /**
     * Sends {@code frame} on {@code endpoint}.
     *
     * @return false (logged) when UCX refused it at once
     */
    boolean send(UcpEndpoint endpoint, byte[] frame) {
        if (frame.length > BUFFER_BYTES) {
            LOG.log(Level.WARNING, () -> name + ": a notification frame of " + frame.length + " B does not fit");
            return false;
        }
        Send s = pool.pollFirst();
        if (s == null) {
            s = new Send();
        }
        MemorySegment.ofBuffer(s.buffer).copyFrom(MemorySegment.ofArray(frame));
        try {
            endpoint.sendAmNonBlocking(AM_ID, 0, 0, s.address, frame.length, UcpConstants.UCP_AM_SEND_FLAG_EAGER, s);
            return true;
        } catch (RuntimeException e) {
            // JUCX calls the callback when UCX returned the error, which recycled the buffer already
            if (UcsStatus.statusOf(e, UcsStatus.OK) == UcsStatus.OK) {
                recycle(s);
            }
            LOG.log(Level.DEBUG, () -> name + ": sending a notification failed: " + UcsStatus.describe(e));
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
                s.received(frame, null);
            }
        }
        return n;
    }
}
