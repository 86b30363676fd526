package io.blockxfer.transport.internal;

import io.blockxfer.transport.TransferFailedException;
import io.blockxfer.transport.TransferFuture;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The outcomes of asynchronous transfers on their way to their {@link TransferFuture}s. Whoever
 * finds an asynchronous transfer terminal, cancelled or closed (under a peer's lock) queues its
 * outcome here; the same thread completes the queued futures once it holds no lock
 * ({@link #completeReady()}), so dependents never run under a lock of the transport or inside a
 * backend's native callback. An outcome leaves the queue only after its future is complete, so a
 * thread whose {@link #completeReady()} returns knows that every outcome queued before it began is
 * complete, even one another thread was completing at the same moment: a cancel that found its
 * transfer already ended returns with the future done. Counts the asynchronous transfers not yet
 * completed and the threads blocked on a future ({@link #joinStarted()}) or submitting one
 * ({@link #submitStarted()}), which tell the
 * transport's completion thread whether a pending future has nobody to complete it but itself,
 * and keeps the hint of whether a submit should wake that thread ({@link #wakeAtSubmit()}).
 *
 * <p><b>Thread safety:</b> thread-safe. A transport that never submits asynchronously pays one
 * volatile read per poll here and allocates nothing.
 */
public final class AsyncCompletions {

    private static final int DONE = 0;
    private static final int FAILED = 1;
    private static final int CANCELLED = 2;
    private static final int CLOSED = 3;

    /** One queued outcome; compared by identity, so that exactly one thread takes it out of the queue. */
    private static final class Outcome {
        final TransferFuture future;
        final int kind;
        final @Nullable String why;

        Outcome(TransferFuture future, int kind, @Nullable String why) {
            this.future = future;
            this.kind = kind;
            this.why = why;
        }
    }

    private final ConcurrentLinkedQueue<Outcome> ready = new ConcurrentLinkedQueue<>();
    private final AtomicInteger pending = new AtomicInteger();
    private final AtomicInteger joining = new AtomicInteger();
    /** Whether lately a future was left to the completion thread (true) or joined (false). */
    private volatile boolean wakeAtSubmit = true;
    private final String label;

    /** @param label how the transport names itself in messages */
    public AsyncCompletions(String label) {
        this.label = label;
    }

    /** An asynchronous transfer is about to enter its peer's table. */
    public void submitted() {
        pending.incrementAndGet();
    }

    /** How many asynchronous transfers are submitted and not yet completed. */
    public int pending() {
        return pending.get();
    }

    /**
     * A thread blocks on a future (or calls get or join on one already done): the transport's
     * futures are now expected to be joined ({@link #wakeAtSubmit()} turns false).
     */
    public void joinSeen() {
        if (wakeAtSubmit) {
            wakeAtSubmit = false;
        }
    }

    /**
     * A dependent was added to a pending future: the transport's futures are now expected to be
     * taken care of by their callers, the thread that adds a dependent waking the completion
     * thread for a future that stays pending ({@link #wakeAtSubmit()} turns false, as for a join).
     */
    public void dependentSeen() {
        joinSeen();
    }

    /**
     * A thread starts an asynchronous submit: until {@link #submitEnded()} the future it makes has
     * that thread with it, however long the backend takes to start the transfer, and is not
     * counted as unattended (called before the future counts as pending).
     */
    public void submitStarted() {
        joining.incrementAndGet();
    }

    /** The thread's asynchronous submit returned (or threw). */
    public void submitEnded() {
        joining.decrementAndGet();
    }

    /** A thread starts blocking on a future still pending: it completes that future itself. */
    public void joinStarted() {
        joining.incrementAndGet();
    }

    /** A thread stopped blocking on a future. */
    public void joinEnded() {
        joining.decrementAndGet();
    }

    /**
     * Whether more futures are pending than threads block on futures or submit them: some pending
     * future may have nobody to complete it but the completion thread (or is between its submit's
     * return and its join).
     */
    public boolean unattended() {
        return pending.get() > joining.get();
    }

    /**
     * Whether an asynchronous submit should wake the completion thread at once (the futures of
     * this transport were lately left to it), or leave the future to the thread that will block
     * on it (they were lately joined).
     */
    public boolean wakeAtSubmit() {
        return wakeAtSubmit;
    }

    /** The completion thread found a future nobody blocked on for a while: wake it at submits again. */
    public void leftToTheCompletionThread() {
        if (!wakeAtSubmit) {
            wakeAtSubmit = true;
        }
    }

    /** The transfer of {@code future} ended; {@code why} says how it failed (null when done). */
    public void ended(TransferFuture future, boolean success, @Nullable String why) {
        ready.add(new Outcome(future, success ? DONE : FAILED, why));
    }

    /** The transfer of {@code future} was cancelled. */
    public void cancelled(TransferFuture future) {
        ready.add(new Outcome(future, CANCELLED, null));
    }

    /** The transport closed before the transfer of {@code future} ended. */
    public void closed(TransferFuture future) {
        ready.add(new Outcome(future, CLOSED, null));
    }

    /**
     * Completes every queued future, and returns once the queue is empty; call it holding no lock
     * of the transport. Several threads may drain at once: each completes the outcome at the head
     * (a future completes once; the others' attempts change nothing), then takes it out, and the
     * one that takes it out counts it.
     */
    public void completeReady() {
        Outcome o;
        while ((o = ready.peek()) != null) {
            try {
                complete(o);
            } finally {
                if (ready.remove(o)) {
                    pending.decrementAndGet();
                }
            }
        }
    }

    private void complete(Outcome o) {
        TransferFuture f = o.future;
        switch (o.kind) {
            case DONE -> f.complete(null);
            case FAILED -> f.completeExceptionally(new TransferFailedException(f.transferId(), f.peerId(),
                    o.why != null ? o.why : "the backend reported it failed"));
            case CANCELLED -> f.completeExceptionally(new CancellationException("transfer " + f.transferId()
                    + " to peer '" + f.peerId() + "' was cancelled"));
            default -> f.completeExceptionally(new IllegalStateException("transport closed: " + label
                    + " closed before transfer " + f.transferId() + " to peer '" + f.peerId() + "' ended"));
        }
    }
}
