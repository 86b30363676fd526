package io.blockxfer.transport.spi;

import io.blockxfer.transport.BlockRegion;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.TransferOp;
import java.util.Optional;

/**
 * The native half of a backend: what {@link ManagedTransport} needs to implement the whole
 * {@link io.blockxfer.transport.DataTransport} contract. The engine moves bytes; the managed
 * transport owns ids, validation, per-peer bookkeeping, generations, deadlines, cancellation and
 * teardown order, so every backend gets them right the same way.
 *
 * <p>Peer handles and transfer handles are the engine's own objects, opaque to the caller.
 *
 * <p><b>Thread safety:</b> the managed transport calls {@link #connect} on its registration
 * thread or an {@code addPeer} caller, and every other method from any thread, but never two
 * calls for the same transfer handle at once, and never {@link #submit}, {@link #status} or
 * {@link #release} for one peer concurrently with each other. Implementations must tolerate
 * concurrent calls for different peers.
 */
public interface TransferEngine {

    /** {@link #status} of a transfer still in flight. */
    int PENDING = 0;
    /** {@link #status} of a transfer that completed. */
    int DONE = 1;
    /** {@link #status} of a transfer that ended in any other way. */
    int FAILED = 2;

    /** The provider name of this backend. */
    String backendName();

    /** The local region the engine registered. */
    BlockRegion region();

    /** The opaque bytes a remote engine's {@link #connect} needs to reach this one. */
    byte[] agentMetadata();

    /**
     * Builds what transfers to a peer need: O(peer blocks) native work. Geometry and
     * compatibility were checked; the backend metadata inside was not.
     *
     * @return the engine's peer handle
     * @throws io.blockxfer.transport.MalformedPeerDescriptorException if the metadata is unusable
     * @throws io.blockxfer.transport.IncompatiblePeerException if the peer cannot be talked to
     * @throws io.blockxfer.transport.PeerRegistrationException if the native layer fails; in every
     *     case nothing stays registered
     */
    Object connect(String peerId, PeerDescriptor peer);

    /**
     * Starts one transfer. Indices were validated against both regions and the arrays are not
     * empty; they may change after this returns. Must not block on the network.
     *
     * @param transferId the id the caller will know the transfer by (for the backend's own
     *     telemetry and logs)
     * @return a non-null transfer handle
     * @throws RuntimeException if the transfer could not start; it is reported failed
     */
    Object submit(long transferId, Object peer, TransferOp op, int[] localBlocks, int[] remoteBlocks);

    /**
     * {@link #PENDING}, {@link #DONE} or {@link #FAILED}. Terminal states are sticky. A throw counts
     * as {@link #FAILED}.
     */
    int status(Object transfer);

    /** Releases a transfer that {@link #status} reported terminal. */
    void release(Object transfer);

    /**
     * Best effort: makes the peer's transfers in flight terminal (force-closes the connection).
     * Later submits to this peer may fail. Called when a peer is removed, replaced or misses a
     * deadline.
     */
    void abort(Object peer);

    /**
     * Releases a peer's native state. Called once, after every transfer of that peer was released,
     * or at close.
     */
    void disconnect(Object peer);

    /**
     * Releases everything else.
     *
     * @param leaked some transfer never became terminal, so memory that native code may still
     *     write must not be freed
     */
    void close(boolean leaked);

    /**
     * The backend's own measurement of a completed transfer, if it has one: fills {@code out} with
     * post time (µs), transfer time (µs), bytes and native descriptor count, and returns true.
     * Called on a terminal transfer before {@link #release}, only when an observer asks for it.
     */
    default boolean nativeTelemetry(Object transfer, long[] out) {
        return false;
    }

    /**
     * Advances transfers on the calling thread, if the engine can do so without waiting: the
     * polling thread then drives the backend (a UCX worker's progress, a loopback copy) instead of
     * waiting for the backend's own thread, which on a busy host competes with it for a core. The
     * backend's own thread stays the fallback for callers that poll rarely.
     *
     * <p>Called by every poll before transfer states are read, outside every lock of the managed
     * transport, from any thread and possibly from several at once. Must never block or wait for
     * the network (try a lock; give up if another thread holds it). A throw is logged and ignored.
     *
     * @return how many events (completions, commands, copies) this call processed; 0 if it did
     *     nothing or the engine has no such mode
     */
    default int progress() {
        return 0;
    }

    /**
     * Receives the signal the engine fires whenever a transfer may have become terminal (see
     * {@link CompletionSignal#signal()}); called once, before the first {@link #submit}.
     *
     * <p>An engine that returns true promises to fire it for every transfer that becomes terminal
     * without a call of the managed transport (on its own threads, or in {@link #progress()}), so
     * that a caller waiting for completions is woken without anything polling. An engine that
     * returns false (the default) is polled instead: while callers wait or asynchronous transfers
     * are pending, the managed transport runs one status thread that calls {@link #progress()} and
     * {@link #status} with an adaptive back-off (a few microseconds after a completion, up to a
     * millisecond when idle), keeping the threading rules above.
     *
     * @return whether the engine fires the signal
     */
    default boolean bindCompletionSignal(CompletionSignal signal) {
        return false;
    }

    /**
     * Callers started ({@code true}) or stopped ({@code false}) waiting for completions: the first
     * thread parked in a wait, and the last one to leave. (The managed transport's thread that
     * completes asynchronous transfers is not counted: it calls {@link #progress()} itself each
     * time a submit or the signal wakes it.) While callers wait, an engine whose own thread leaves
     * transfers to the callers' polls
     * ({@link io.blockxfer.transport.ProgressMode#POLLING_THREAD}) must drive them to their end
     * itself, and fire the completion signal: a waiting caller does not poll until it is woken.
     * Calls alternate, starting with {@code true}, and are made one at a time, under a lock of
     * the managed transport: return quickly, never block, never call back into the transport.
     */
    default void callersWaiting(boolean waiting) {
    }

    // ------------------------------------------------------------------ notifications

    /**
     * Receives the sink for notification messages that reach this engine; called once, before the
     * first {@link #connect}. An engine that returns true delivers every message a peer sends it
     * (a transfer's or a standalone one) to the sink exactly once, after the bytes of the transfer
     * it follows are visible in the region, and keeps doing so while nobody polls (a backend that
     * must be asked for messages asks on its own thread, at least every few milliseconds, so that
     * its native queue stays bounded); while callers wait ({@link #callersWaiting}) it delivers as
     * promptly as it signals completions, and it fires the completion signal after delivering, so
     * that waiters wake.
     *
     * @return whether the engine delivers notifications; false (the default) for an engine that
     *     cannot, which then declares no {@link io.blockxfer.transport.Capability#NOTIFICATIONS}
     */
    default boolean bindNotificationSink(NotificationSink sink) {
        return false;
    }

    /**
     * As {@link #submit(long, Object, TransferOp, int[], int[])}, and sends {@code notification} to
     * the peer (on the same connection) once every byte of the transfer is visible there: for a
     * WRITE, once the peer's region holds the bytes; for a READ, once the local copy is complete.
     * It is sent only if the transfer ends {@link #DONE}, and at most once; {@link #status} may
     * report {@link #DONE} before the message has arrived. Called only by a managed transport whose
     * engine returned true from {@link #bindNotificationSink}.
     *
     * @throws RuntimeException if the transfer could not start; it is reported failed and nothing
     *     is sent
     */
    default Object submit(long transferId, Object peer, TransferOp op, int[] localBlocks, int[] remoteBlocks,
            OutboundNotification notification) {
        throw new UnsupportedOperationException(backendName() + " engine does not carry notifications");
    }

    /**
     * Sends a message without a transfer to the peer. Must not block on the network; delivery is
     * not confirmed.
     *
     * @throws RuntimeException if the message could not be handed to the network (the connection
     *     is down); the caller reports false
     */
    default void sendNotification(Object peer, OutboundNotification notification) {
        throw new UnsupportedOperationException(backendName() + " engine does not send notifications");
    }

    /** An optional feature of the backend (fault injection, telemetry). */
    default <T> Optional<T> feature(Class<T> type) {
        return Optional.empty();
    }
}
