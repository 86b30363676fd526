package io.blockxfer.transport;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;

/**
 * The outcome of one transfer submitted with {@link DataTransport#writeBlocksAsync} or
 * {@link DataTransport#readBlocksAsync}: completes normally when the transfer is done, and
 * exceptionally with a {@link TransferFailedException} when it failed, with a
 * {@link java.util.concurrent.CancellationException} when it was cancelled, or with an
 * {@link IllegalStateException} when the transport closed before it ended. The transfer is never
 * reported by a poll or a wait: each id goes to exactly one surface, chosen at submit.
 *
 * <p>{@link #cancel(boolean)} cancels the transfer in its transport, as
 * {@link DataTransport#cancel} with {@link CancelMode#IMMEDIATE} does (bytes may still land), and
 * then this future. Dependent stages ({@link #thenRun}, {@link #whenComplete}, ...) are plain
 * {@link CompletableFuture}s; a dependent registered with a non-async method may run on the thread
 * that completes this future: a thread that polls or waits on the same transport, the transport's
 * completion thread, or the thread that removes the peer, cancels or closes. The transport
 * completes futures only after releasing its locks, and never on a thread inside native code (a
 * backend's callback), so dependents may call back into the transport; a dependent that blocks
 * for long holds up the thread that completed it (on the transport's completion thread, the
 * futures after it), so give such a dependent an executor ({@code thenRunAsync(action,
 * executor)}). Completing
 * this future by hand ({@link #complete}, {@link #obtrudeValue}, ...) changes what its dependents
 * see, not the transfer: the transport still tracks it until it ends.
 *
 * <p><b>Thread safety:</b> thread-safe, as {@link CompletableFuture}.
 */
public final class TransferFuture extends CompletableFuture<Void> {

    private final long transferId;
    private final String peerId;
    private final LongConsumer cancelTransfer;

    /**
     * A future of transfer {@code transferId} to {@code peerId}, for the transports that hand them
     * out.
     *
     * @param cancelTransfer cancels the transfer in its transport (immediately; it must not throw
     *     for an id already ended), called with {@link #transferId()} by {@link #cancel} before the
     *     future itself is cancelled
     */
    public TransferFuture(long transferId, String peerId, LongConsumer cancelTransfer) {
        this.transferId = transferId;
        this.peerId = Objects.requireNonNull(peerId, "peerId");
        this.cancelTransfer = Objects.requireNonNull(cancelTransfer, "cancelTransfer");
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
        return super.cancel(mayInterruptIfRunning);
    }

    /** Dependent stages are plain {@link CompletableFuture}s, with no transfer of their own. */
    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new CompletableFuture<>();
    }

    @Override
    public String toString() {
        return "TransferFuture[" + (transferId == DataTransport.NOT_SUBMITTED ? "not submitted" : "id=" + transferId)
                + ", peer=" + peerId + ", " + super.toString() + "]";
    }
}
