package io.blockxfer.transport.internal;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.TransferFuture;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.internal.notify.TransportNotifications;
import io.blockxfer.transport.spi.TransferEngine;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/**
 * Starts transfers: checks the arguments against both regions, hands out ids, calls the engine
 * under the peer's lock, and enters the handle in the peer's in-flight table. An engine error
 * becomes a failed report owed to the next poll (or a failed future), never an exception.
 *
 * <p><b>Thread safety:</b> thread-safe; submits to different peers never contend, and a submit
 * allocates nothing in the steady state.
 */
public final class TransferSubmitter {

    private final PeerTable peers;
    private final TransportState state;
    private final TransferEngine engine;
    private final PeerHealth health;
    private final Telemetry telemetry;
    private final AsyncCompletions async;
    private final LongConsumer cancelHook;
    private final Runnable completionThread;
    private final TransportNotifications notifications;
    private final TransferFuture.Driver futureDriver;
    private final int localBlocks;
    private final long blockLength;
    private final AtomicLong nextId = new AtomicLong();

    /**
     * @param cancelHook cancels one transfer immediately, for {@link TransferFuture#cancel}
     * @param completionThread makes sure the transport's completion thread runs (after an
     *     asynchronous submit)
     * @param futureDriver what a thread blocked on an asynchronous transfer's future drives
     */
    public TransferSubmitter(PeerTable peers, TransportState state, TransferEngine engine, PeerHealth health,
            Telemetry telemetry, AsyncCompletions async, LongConsumer cancelHook, Runnable completionThread,
            TransportNotifications notifications, int localBlocks, long blockLength,
            TransferFuture.Driver futureDriver) {
        this.peers = peers;
        this.state = state;
        this.engine = engine;
        this.health = health;
        this.telemetry = telemetry;
        this.async = async;
        this.cancelHook = cancelHook;
        this.completionThread = completionThread;
        this.notifications = notifications;
        this.futureDriver = futureDriver;
        this.localBlocks = localBlocks;
        this.blockLength = blockLength;
    }

    /**
     * Submits one transfer.
     *
     * @return its id, or {@link DataTransport#NOT_SUBMITTED} if the peer is not registered
     * @throws IllegalArgumentException for bad indices (no id is consumed)
     * @throws IllegalStateException if the transport is closed
     */
    public long submit(TransferOp op, String peerId, int[] localBlocks, int[] remoteBlocks) {
        return submit(op, peerId, localBlocks, remoteBlocks, null, null);
    }

    /**
     * Submits one transfer that carries a notification to its peer.
     *
     * @return its id, or {@link DataTransport#NOT_SUBMITTED} if the peer is not registered
     * @throws IllegalArgumentException for bad indices or a notification too long (no id is consumed)
     * @throws UnsupportedOperationException if the backend does not carry notifications
     * @throws IllegalStateException if the transport is closed
     */
    public long submit(TransferOp op, String peerId, int[] localBlocks, int[] remoteBlocks, byte[] notification) {
        notifications.checkOutgoing(notification);
        return submit(op, peerId, localBlocks, remoteBlocks, null, notification.clone());
    }

    /**
     * Submits one asynchronous transfer: its outcome completes the returned future instead of a
     * poll's report.
     *
     * @return its future; one already failed if the peer is not registered
     * @throws IllegalArgumentException for bad indices (no id is consumed)
     * @throws IllegalStateException if the transport is closed
     */
    public TransferFuture submitAsync(TransferOp op, String peerId, int[] localBlocks, int[] remoteBlocks) {
        return submitAsync(op, peerId, localBlocks, remoteBlocks, null);
    }

    /**
     * Submits one asynchronous transfer, carrying {@code notification} to its peer unless it is null.
     *
     * @throws UnsupportedOperationException if a notification is given and the backend does not carry them
     */
    public TransferFuture submitAsync(TransferOp op, String peerId, int[] localBlocks, int[] remoteBlocks,
            byte @Nullable [] notification) {
        if (notification != null) {
            notifications.checkOutgoing(notification);
            notification = notification.clone();
        }
        TransferFuture[] future = new TransferFuture[1];
        // the submitting thread attends its future until it returns it, so that the completion
        // thread's watch does not take over a future whose submit is still in the backend
        async.submitStarted();
        try {
            long id = submit(op, peerId, localBlocks, remoteBlocks, future, notification);
            TransferFuture f = future[0];
            if (id == DataTransport.NOT_SUBMITTED || f == null) {
                return TransferFuture.notSubmitted(peerId);
            }
            async.completeReady(); // a submit that failed natively failed its future
            completionThread.run();
            return f;
        } finally {
            async.submitEnded();
        }
    }

    /**
     * @param future null for a polled transfer; else receives the asynchronous transfer's future
     * @param notification null for a transfer without one; else checked, and the transport's own copy
     */
    private long submit(TransferOp op, String peerId, int[] localBlocks, int[] remoteBlocks,
            @Nullable TransferFuture @Nullable [] future, byte @Nullable [] notification) {
        Objects.requireNonNull(peerId, "peerId");
        Objects.requireNonNull(localBlocks, "localBlocks");
        Objects.requireNonNull(remoteBlocks, "remoteBlocks");
        state.ensureOpen();
        if (localBlocks.length != remoteBlocks.length) {
            throw new IllegalArgumentException("localBlocks has " + localBlocks.length + " indices but remoteBlocks has "
                    + remoteBlocks.length);
        }
        if (localBlocks.length == 0) {
            throw new IllegalArgumentException("empty transfer: no block indices given");
        }
        checkIndices("local", localBlocks, this.localBlocks);
        PeerSlot slot = peers.get(peerId);
        if (slot == null) {
            return DataTransport.NOT_SUBMITTED;
        }
        synchronized (slot) {
            state.ensureOpen();
            Registration reg = slot.registration;
            if (reg == null) {
                return DataTransport.NOT_SUBMITTED;
            }
            checkIndices("remote", remoteBlocks, reg.numBlocks());
            long id = nextId.getAndIncrement();
            slot.submitted++;
            long bytes = localBlocks.length * blockLength;
            TransferFuture f = null;
            if (future != null) {
                f = new TransferFuture(id, peerId, cancelHook, futureDriver);
                future[0] = f;
                async.submitted();
            }
            Object handle;
            try {
                handle = notification == null ? engine.submit(id, reg.peer(), op, localBlocks, remoteBlocks)
                        : engine.submit(id, reg.peer(), op, localBlocks, remoteBlocks,
                                notifications.forTransfer(reg, op, id, notification));
                if (handle == null) {
                    throw new IllegalStateException("engine returned no transfer handle");
                }
            } catch (RuntimeException | LinkageError e) {
                if (f != null) {
                    async.ended(f, false, "the backend refused to start it: " + e);
                } else {
                    slot.owedFailures.add(id);
                }
                health.failed(slot, op + " submit", e);
                telemetry.submitted(peerId, id, op, localBlocks.length, bytes);
                telemetry.ended(peerId, id, op, localBlocks.length, bytes, 0, false);
                return id;
            }
            reg.transferStarted();
            slot.inflight.add(id, handle, reg, System.nanoTime(), op, localBlocks.length, f);
            telemetry.submitted(peerId, id, op, localBlocks.length, bytes);
            if (notification != null) {
                notifications.sentWithTransfer(peerId, op, id, notification.length);
            }
            return id;
        }
    }

    private static void checkIndices(String side, int[] blocks, int numBlocks) {
        for (int i = 0; i < blocks.length; i++) {
            int b = blocks[i];
            if (b < 0 || b >= numBlocks) {
                throw new IllegalArgumentException(side + " block index " + b + " at position " + i
                        + " is out of range [0, " + numBlocks + ")");
            }
        }
    }
}
