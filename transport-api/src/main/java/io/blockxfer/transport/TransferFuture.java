package io.blockxfer.transport;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of one transfer submitted with {@link DataTransport#writeBlocksAsync} or
 * {@link DataTransport#readBlocksAsync}: completes normally when the transfer is done, and
 * exceptionally with a {@link TransferFailedException} when it failed, with a
 * {@link java.util.concurrent.CancellationException} when it was cancelled, or with an
 * {@link IllegalStateException} when the transport closed before it ended. The transfer is never
 * reported by a poll or a wait: each id goes to exactly one surface, chosen at submit.
 *
 * <p><b>Blocking on it.</b> {@link #get()}, {@link #get(long, TimeUnit)} and {@link #join()} cost
 * what a wait of the transfer's peer costs: the blocked thread drives the transport itself (its
 * {@link Driver}), spinning briefly, completes this future on its own thread, and parks only after
 * that, woken by the backend's completion signal, the transfer's deadline, close or its interrupt.
 * {@code get} throws {@link InterruptedException} (with the interrupt status cleared) when its
 * thread is interrupted, {@code join} is not interruptible, as {@link CompletableFuture}'s. A
 * future made with {@link #TransferFuture(long, String, LongConsumer)} has no driver and waits as
 * a plain {@link CompletableFuture} does.
 *
 * <p><b>Cancel.</b> {@link #cancel(boolean)} cancels the transfer in its transport, as
 * {@link DataTransport#cancel} with {@link CancelMode#IMMEDIATE} does (bytes may still land), and
 * then this future.
 *
 * <p><b>Dependents.</b> Dependent stages ({@link #thenRun}, {@link #whenComplete}, ...) are plain
 * {@link CompletableFuture}s; a dependent registered with a non-async method runs on the thread
 * that completes this future: the thread blocked on it (its own), the thread that adds a dependent
 * to it (adding a dependent to a pending future first looks at its peer, as a poll does, so a
 * transfer that already ended runs the dependent at once, on that thread, with no hand-off), a
 * thread that polls or waits on the same transport, the transport's completion thread, or the
 * thread that removes the peer, cancels or closes; a chain of such dependents runs on that one
 * thread, stage after stage. The
 * transport completes futures only after releasing its locks, and never on a thread inside native
 * code (a backend's callback or an upcall), so dependents may call back into the transport; a
 * dependent that blocks for long holds up the thread that completed it (on the transport's
 * completion thread, the futures after it), so give such a dependent an executor
 * ({@code thenRunAsync(action, executor)}). Completing this future by hand ({@link #complete},
 * {@link #obtrudeValue}, ...) changes what its dependents see, not the transfer: the transport
 * still tracks it until it ends.
 *
 * <p><b>Thread safety:</b> thread-safe, as {@link CompletableFuture}.
 */
public final class TransferFuture extends CompletableFuture<Void> {

    /**
     * How a thread blocked on a {@link TransferFuture} advances the transfer's transport, so that
     * blocking on a future costs what a wait costs; handed to the future by the transport that
     * made it.
     *
     * <p><b>Thread safety:</b> implementations must be thread-safe: any thread may block on any
     * future, several on one.
     */
    public interface Driver {

        /**
         * Blocks until {@code future} is done or {@code nanos} have passed, advancing the transfer
         * meanwhile (polling the transport, completing the futures it finds ended) and parking
         * only with {@link LockSupport}; the future unparks its blocked threads when it completes.
         * May also return earlier, with the future still pending, when it can no longer advance it
         * (its transport closed): the caller then waits for the future as a plain
         * {@link CompletableFuture} does. Called also for a future already done (return at once,
         * without checking the interrupt), so that the driver sees every get and join.
         *
         * @param nanos the longest to block; {@link Long#MAX_VALUE} for no limit
         * @throws InterruptedException if the thread is interrupted before or while it blocks; its
         *     interrupt status is cleared
         */
        void await(TransferFuture future, long nanos) throws InterruptedException;

        /**
         * A dependent stage was added to {@code future} while it was pending: make sure it is
         * completed without any thread blocking on it. Must not park: it may take a first look, as
         * a poll does, and complete the future on the calling thread. Does nothing by default.
         */
        default void dependentAdded(TransferFuture future) {
        }
    }

    /** The driver of futures made without one: nothing to drive, {@link CompletableFuture}'s own wait. */
    private static final Driver NO_DRIVER = (future, nanos) -> { };

    private static final VarHandle BLOCKED;

    static {
        try {
            BLOCKED = MethodHandles.lookup().findVarHandle(TransferFuture.class, "blocked", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long transferId;
    private final String peerId;
    private final LongConsumer cancelTransfer;
    private final Driver driver;
    /** The threads blocked in get or join: null, one {@link Thread}, or a {@code Thread[]}; replaced by CAS. */
    @SuppressWarnings("unused") // through BLOCKED
    private volatile @Nullable Object blocked;

    /**
     * A future of transfer {@code transferId} to {@code peerId} without a driver: blocking on it
     * waits as on a plain {@link CompletableFuture}.
     *
     * @param cancelTransfer cancels the transfer in its transport (immediately; it must not throw
     *     for an id already ended), called with {@link #transferId()} by {@link #cancel} before the
     *     future itself is cancelled
     */
    public TransferFuture(long transferId, String peerId, LongConsumer cancelTransfer) {
        this(transferId, peerId, cancelTransfer, NO_DRIVER);
    }

    /**
     * A future of transfer {@code transferId} to {@code peerId}, for the transports that hand them
     * out, whose blocked threads advance the transport through {@code driver}.
     *
     * @param cancelTransfer cancels the transfer in its transport (immediately; it must not throw
     *     for an id already ended), called with {@link #transferId()} by {@link #cancel} before the
     *     future itself is cancelled
     */
    public TransferFuture(long transferId, String peerId, LongConsumer cancelTransfer, Driver driver) {
        this.transferId = transferId;
        this.peerId = Objects.requireNonNull(peerId, "peerId");
        this.cancelTransfer = Objects.requireNonNull(cancelTransfer, "cancelTransfer");
        this.driver = Objects.requireNonNull(driver, "driver");
    }

    /**
     * A future already failed because {@code peerId} is not registered: its
     * {@link #transferId()} is {@link DataTransport#NOT_SUBMITTED}, and it completed with a
     * {@link TransferFailedException}.
     */
    public static TransferFuture notSubmitted(String peerId) {
        TransferFuture f = new TransferFuture(DataTransport.NOT_SUBMITTED, peerId, id -> { });
        f.completeExceptionally(new TransferFailedException(DataTransport.NOT_SUBMITTED, peerId,
                "the peer is not registered"));
        return f;
    }

    /** The transfer's id, as a submit would return it; {@link DataTransport#NOT_SUBMITTED} if not submitted. */
    public long transferId() {
        return transferId;
    }

    /** The peer the transfer was submitted to. */
    public String peerId() {
        return peerId;
    }

    // ------------------------------------------------------------------ blocking

    /**
     * Waits for the transfer to end, driving its transport meanwhile (see the class comment).
     *
     * @throws InterruptedException if the thread is interrupted before or while it waits; the
     *     transfer goes on, and this future completes when it ends
     */
    @Override
    public Void get() throws InterruptedException, ExecutionException {
        block(Long.MAX_VALUE);
        return super.get();
    }

    /**
     * Waits at most {@code timeout} for the transfer to end, driving its transport meanwhile (see
     * the class comment).
     *
     * @throws TimeoutException if the limit passed; the transfer goes on, and this future
     *     completes when it ends
     * @throws InterruptedException if the thread is interrupted before or while it waits
     */
    @Override
    public Void get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        long nanos = unit.toNanos(timeout);
        long start = System.nanoTime();
        block(Math.max(0, nanos));
        if (!isDone()) {
            return super.get(Math.max(0, nanos - (System.nanoTime() - start)), TimeUnit.NANOSECONDS);
        }
        return super.get();
    }

    /**
     * Waits for the transfer to end, driving its transport meanwhile (see the class comment); not
     * interruptible: an interrupt is kept in the thread's interrupt status, set again on return.
     */
    @Override
    public Void join() {
        boolean interrupted = false;
        while (true) {
            try {
                block(Long.MAX_VALUE);
                break;
            } catch (InterruptedException e) {
                interrupted = true; // the driver cleared the status: block again, and set it on return
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return super.join();
    }

    /**
     * Blocks in the driver, registered so that a completion by another thread unparks this one;
     * a future already done is still shown to the driver, which learns that futures are joined.
     */
    private void block(long nanos) throws InterruptedException {
        if (isDone()) {
            driver.await(this, 0);
            return;
        }
        Thread self = Thread.currentThread();
        addBlocked(self);
        try {
            driver.await(this, nanos);
        } finally {
            removeBlocked(self);
        }
    }

    private void addBlocked(Thread t) {
        while (true) {
            Object b = blocked;
            Object next;
            if (b == null) {
                next = t;
            } else if (b instanceof Thread one) {
                next = new Thread[] {one, t};
            } else {
                Thread[] many = (Thread[]) b;
                Thread[] more = Arrays.copyOf(many, many.length + 1);
                more[many.length] = t;
                next = more;
            }
            if (BLOCKED.compareAndSet(this, b, next)) {
                return;
            }
        }
    }

    private void removeBlocked(Thread t) {
        while (true) {
            Object b = blocked;
            Object next;
            if (b == t) {
                next = null;
            } else if (b instanceof Thread[] many) {
                int at = Arrays.asList(many).indexOf(t);
                if (at < 0) {
                    return;
                }
                if (many.length == 2) {
                    next = many[1 - at];
                } else {
                    Thread[] fewer = new Thread[many.length - 1];
                    System.arraycopy(many, 0, fewer, 0, at);
                    System.arraycopy(many, at + 1, fewer, at, many.length - at - 1);
                    next = fewer;
                }
            } else {
                return;
            }
            if (BLOCKED.compareAndSet(this, b, next)) {
                return;
            }
        }
    }

    /** Unparks the threads blocked on this future (the completing thread itself excepted). */
    private void wakeBlocked() {
        Object b = blocked;
        if (b == null) {
            return;
        }
        Thread self = Thread.currentThread();
        if (b instanceof Thread one) {
            if (one != self) {
                LockSupport.unpark(one);
            }
            return;
        }
        for (Thread t : (Thread[]) b) {
            if (t != self) {
                LockSupport.unpark(t);
            }
        }
    }

    // ------------------------------------------------------------------ completing

    @Override
    public boolean complete(Void value) {
        boolean completed = super.complete(null); // a Void value is null
        wakeBlocked();
        return completed;
    }

    @Override
    public boolean completeExceptionally(Throwable ex) {
        boolean completed = super.completeExceptionally(ex);
        wakeBlocked();
        return completed;
    }

    @Override
    public void obtrudeValue(Void value) {
        super.obtrudeValue(null); // a Void value is null
        wakeBlocked();
    }

    @Override
    public void obtrudeException(Throwable ex) {
        super.obtrudeException(ex);
        wakeBlocked();
    }

    /**
     * Cancels the transfer in its transport (immediately: it is never reported, and its bytes may
     * still land), then this future. Does nothing and returns false if this future is already
     * completed. A transport that closed meanwhile has already failed the future.
     *
     * @param mayInterruptIfRunning ignored: no thread runs the transfer on the caller's behalf
     * @return whether this call cancelled the future
     */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        if (isDone()) {
            return false;
        }
        try {
            cancelTransfer.accept(transferId);
        } catch (IllegalStateException closed) {
            // the transport closed, which fails this future; cancelling it below keeps the call's promise
        }
        boolean cancelled = super.cancel(mayInterruptIfRunning);
        wakeBlocked();
        return cancelled;
    }

    /**
     * Dependent stages are plain {@link CompletableFuture}s, with no transfer of their own; adding
     * one to a pending future tells the driver, so that the future completes without anyone
     * blocking on it.
     */
    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        if (!isDone()) {
            driver.dependentAdded(this);
        }
        return new CompletableFuture<>();
    }

    @Override
    public String toString() {
        return "TransferFuture[" + (transferId == DataTransport.NOT_SUBMITTED ? "not submitted" : "id=" + transferId)
                + ", peer=" + peerId + ", " + super.toString() + "]";
    }
}
