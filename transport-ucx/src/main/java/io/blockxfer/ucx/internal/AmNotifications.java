package io.blockxfer.ucx.internal;

import io.blockxfer.transport.spi.NotificationSink;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
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
 * A {@link ProgressLoop}'s notifications as UCX active messages, eager and small: the frames to a
 * peer's endpoint in one command drain or round are gathered into one message (a bundle of up to
 * {@value #BUNDLE_FRAMES} frames and {@value #BUNDLE_BYTES} bytes, each frame after its 2-byte
 * length) from a pooled off-heap buffer, released when UCX is done with it ({@link #flush}); the
 * worker's handler copies each frame of a bundle out inside {@code progress()} and keeps it until
 * the round ends; then {@link #deliverArrived} hands them to the transport's sink, outside every
 * UCX callback. A WRITE's frame is gathered only once its flush completed (or its copy to a mapped
 * region was fenced), and sent on the endpoint the puts went through, so it reaches the target
 * after the bytes; the transfer is done when UCX is done with its bundle, so a receiver that does
 * not drain slows its senders (through their transfers in flight, and, for messages without a
 * transfer, through a bound per peer) instead of piling messages up in UCX. One message carries
 * many notifications when transfers end together, which is where a notification's cost was: one
 * message sent and one received per notification. A peer whose metadata does not say that it
 * takes bundles ({@link UcxMetadata#takesNotificationBundles}, a peer of an older build) gets
 * each frame as a message of its own, sent at once, as before.
 *
 * <p><b>Thread safety:</b> owner only: every method but {@link #bind} runs on the current owner of
 * the loop's worker (in a round, a command, or JUCX's callbacks inside them).
 */
final class AmNotifications {

    /** The active message id of a single notification frame (sent to peers that take no bundles). */
    static final int AM_ID = 17;
    /** The active message id of a bundle of notification frames, each after its 2-byte length. */
    static final int BUNDLE_AM_ID = 18;
    /** Buffers kept for reuse at most. */
    private static final int POOL_LIMIT = 256;
    /** The largest frame. */
    private static final int FRAME_BYTES = 2048;
    /** The bytes of a bundle at most: one eager fragment of UCX's shared memory. */
    static final int BUNDLE_BYTES = 4096;
    /** The frames of a bundle at most. */
    static final int BUNDLE_FRAMES = 64;
    private static final System.Logger LOG = System.getLogger(ProgressLoop.class.getName());

    private static final ValueLayout.OfShort LENGTH = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final String name;
    private final ArrayDeque<Send> pool = new ArrayDeque<>();
    /** Bundles gathered and not yet sent, one per endpoint, in the order they were started. */
    private final ArrayList<Send> pending = new ArrayList<>(4);
    /** Messages sent, and the frames in them (for tests; only the owner writes them). */
    private long messagesSent;
    private long framesSent;
    private final ArrayDeque<byte[]> arrived = new ArrayDeque<>();
    private volatile @Nullable NotificationSink sink;

    /** Registers the receive handler on {@code worker}; called before anyone progresses it. */
    AmNotifications(String name, UcpWorker worker) {
        this.name = name;
        worker.setAmRecvHandler(AM_ID, this::onReceive, UcpConstants.UCP_AM_FLAG_WHOLE_MSG);
        worker.setAmRecvHandler(BUNDLE_AM_ID, this::onBundle, UcpConstants.UCP_AM_FLAG_WHOLE_MSG);
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
     * A pooled bundle: its buffer stays untouched until UCX says it is done with it; then it ends
     * what it carried: transfers (done once their message left) and messages without a transfer
     * (their peer's count of messages in flight).
     */
    private final class Send extends UcxCallback {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(BUNDLE_BYTES);
        final MemorySegment segment = MemorySegment.ofBuffer(buffer);
        final long address = UcxUtils.getAddress(buffer);
        final @Nullable UcxTransfer[] transfers = new UcxTransfer[BUNDLE_FRAMES];
        final int[] epochs = new int[BUNDLE_FRAMES];
        final @Nullable UcxPeer[] messagePeers = new UcxPeer[BUNDLE_FRAMES];
        @Nullable UcpEndpoint endpoint;
        int frames;
        int bytes;

        boolean fits(byte[] frame) {
            return frames < BUNDLE_FRAMES && bytes + 2 + frame.length <= BUNDLE_BYTES;
        }

        void add(byte[] frame, @Nullable UcxTransfer t, @Nullable UcxPeer peer) {
            segment.set(LENGTH, bytes, (short) frame.length);
            MemorySegment.copy(frame, 0, segment, ValueLayout.JAVA_BYTE, bytes + 2, frame.length);
            bytes += 2 + frame.length;
            carries(t, peer);
        }

        /** Holds {@code frame} alone, without its length: a message of id {@value #AM_ID}. */
        void single(byte[] frame, @Nullable UcxTransfer t, @Nullable UcxPeer peer) {
            MemorySegment.copy(frame, 0, segment, ValueLayout.JAVA_BYTE, 0, frame.length);
            bytes = frame.length;
            carries(t, peer);
        }

        private void carries(@Nullable UcxTransfer t, @Nullable UcxPeer peer) {
            transfers[frames] = t;
            epochs[frames] = t == null ? 0 : t.epoch;
            messagePeers[frames] = peer;
            frames++;
        }

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
        int n = s.frames;
        s.frames = 0;
        s.bytes = 0;
        s.endpoint = null;
        for (int i = 0; i < n; i++) {
            UcxTransfer t = s.transfers[i];
            UcxPeer p = s.messagePeers[i];
            s.transfers[i] = null;
            s.messagePeers[i] = null;
            try {
                if (t != null && transfers != null) {
                    transfers.notified(t, s.epochs[i], sent);
                }
                if (p != null) {
                    p.messageEnded();
                }
            } catch (RuntimeException | Error e) {
                // never let an exception unwind into UCX
                LOG.log(Level.ERROR, name + ": ending a notification failed", e);
            }
        }
        if (pool.size() < POOL_LIMIT) {
            pool.addFirst(s);
        }
    }

    /**
     * Gathers a transfer's notification for {@code endpoint}; it is sent at the next
     * {@link #flush}, and the transfer ends when UCX is done with it ({@link TransferNotified}).
     *
     * @return false when it cannot be sent: the caller ends the transfer
     */
    boolean sendFor(UcpEndpoint endpoint, UcxTransfer t) {
        byte[] frame = t.notification;
        if (frame == null) {
            return false;
        }
        return bundles(t.peer) ? gather(endpoint, frame, t, null) : sendSingle(endpoint, frame, t, null);
    }

    /**
     * Gathers a message without a transfer for {@code endpoint}, sent at the next {@link #flush};
     * {@code peer}'s count of messages in flight (if a peer counts it) goes down when UCX is done
     * with it.
     *
     * @return false when it cannot be sent: the caller counts it off
     */
    boolean sendMessage(UcpEndpoint endpoint, byte[] frame, @Nullable UcxPeer peer) {
        return bundles(peer) ? gather(endpoint, frame, null, peer) : sendSingle(endpoint, frame, null, peer);
    }

    /** Whether {@code peer} takes bundles: its metadata says so (a peer of an older build does not). */
    private static boolean bundles(@Nullable UcxPeer peer) {
        return peer == null || peer.metadata.takesNotificationBundles();
    }

    /**
     * Sends one frame as a message of its own (id {@value #AM_ID}) at once, to a peer that takes no
     * bundles. Package-private for tests.
     */
    boolean sendSingle(UcpEndpoint endpoint, byte[] frame, @Nullable UcxTransfer t, @Nullable UcxPeer peer) {
        if (tooLong(frame)) {
            return false;
        }
        Send s = pool.pollFirst();
        if (s == null) {
            s = new Send();
        }
        s.endpoint = endpoint;
        s.single(frame, t, peer);
        send(s, AM_ID);
        return true;
    }

    private boolean tooLong(byte[] frame) {
        if (frame.length > FRAME_BYTES) {
            LOG.log(Level.WARNING, () -> name + ": a notification frame of " + frame.length + " B does not fit");
            return true;
        }
        return false;
    }

    @SuppressWarnings("ReferenceEquality") // one bundle per endpoint object: the same native endpoint
    private boolean gather(UcpEndpoint endpoint, byte[] frame, @Nullable UcxTransfer t, @Nullable UcxPeer peer) {
        if (tooLong(frame)) {
            return false;
        }
        Send s = null;
        for (int i = 0; i < pending.size(); i++) {
            if (pending.get(i).endpoint == endpoint) {
                s = pending.get(i);
                if (!s.fits(frame)) {
                    pending.remove(i);
                    send(s, BUNDLE_AM_ID);
                    s = null;
                }
                break;
            }
        }
        if (s == null) {
            s = pool.pollFirst();
            if (s == null) {
                s = new Send();
            }
            s.endpoint = endpoint;
            pending.add(s);
        }
        s.add(frame, t, peer);
        return true;
    }

    /**
     * Sends every bundle gathered since the last flush; what UCX does not take ends as not
     * delivered (its transfers fail). The owner calls it after each command drain and round, and
     * before anything that may close an endpoint. Returns how many bundles it sent.
     */
    int flush() {
        int n = pending.size();
        if (n == 0) {
            return 0;
        }
        for (int i = 0; i < n; i++) {
            send(pending.get(i), BUNDLE_AM_ID);
        }
        pending.clear();
        return n;
    }

    private void send(Send s, int amId) {
        UcpEndpoint endpoint = s.endpoint;
        if (endpoint == null) {
            ended(s, false);
            return;
        }
        messagesSent++;
        framesSent += s.frames;
        try {
            endpoint.sendAmNonBlocking(amId, 0, 0, s.address, s.bytes, UcpConstants.UCP_AM_SEND_FLAG_EAGER, s);
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, () -> name + ": sending a notification failed: " + UcsStatus.describe(e));
            // JUCX calls the callback when UCX returned the error, which ended what it carried
            if (UcsStatus.statusOf(e, UcsStatus.OK) == UcsStatus.OK) {
                ended(s, false);
            }
        }
    }

    /** Active messages sent so far (owner, or tests once the owner is quiet). */
    long messagesSent() {
        return messagesSent;
    }

    /** Notification frames sent so far, in {@link #messagesSent} messages. */
    long framesSent() {
        return framesSent;
    }

    /** The worker's handler: copies the frame out (it is only valid during this call). */
    @SuppressWarnings("restricted") // UCX hands the message's address and length; read within them only
    private int onReceive(long headerAddress, long headerSize, UcpAmData data, UcpEndpoint replyEp) {
        try {
            if (data.isDataValid() && data.getLength() <= FRAME_BYTES) {
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

    /** The worker's handler of bundles: copies each frame out (the data is only valid during this call). */
    @SuppressWarnings("restricted") // UCX hands the message's address and length; read within them only
    private int onBundle(long headerAddress, long headerSize, UcpAmData data, UcpEndpoint replyEp) {
        try {
            long length = data.getLength();
            if (!data.isDataValid() || length > BUNDLE_BYTES) {
                LOG.log(Level.WARNING, () -> name + ": dropped notifications in " + length + " B that did not arrive"
                        + " whole and eager");
                return UcsConstants.STATUS.UCS_OK;
            }
            MemorySegment bundle = MemorySegment.ofAddress(data.getDataAddress()).reinterpret(length);
            long at = 0;
            while (at + 2 <= length) {
                int frameLength = Short.toUnsignedInt(bundle.get(LENGTH, at));
                if (at + 2 + frameLength > length) {
                    LOG.log(Level.WARNING, () -> name + ": dropped the rest of a malformed notification bundle");
                    break;
                }
                arrived.addLast(bundle.asSlice(at + 2, frameLength).toArray(ValueLayout.JAVA_BYTE));
                at += 2 + frameLength;
            }
        } catch (RuntimeException | Error e) {
            // never let an exception unwind into UCX's progress
            LOG.log(Level.ERROR, name + ": receiving notifications failed", e);
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
