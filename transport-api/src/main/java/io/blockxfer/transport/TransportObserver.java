package io.blockxfer.transport;

/**
 * Receives what a transport does, for metrics: submits, terminal reports with their latency,
 * cancels, peer registrations, removals and failures, and a backend's own per-transfer telemetry.
 * Set one with {@link TransportConfig.Builder#observer(TransportObserver)}; the optional
 * {@code transport-micrometer} module turns these calls into Micrometer meters.
 *
 * <p>Calls come on the threads that submit, poll, cancel and register, some while the transport
 * holds a peer's lock: implementations must be fast, must not block, must not throw (a throw is
 * caught, logged once and otherwise ignored: telemetry never fails a transfer) and must not call
 * back into the transport. Every method has an empty default.
 *
 * <p><b>Thread safety:</b> implementations must be thread-safe.
 */
public interface TransportObserver {

    /** Observes nothing; the default. */
    TransportObserver NONE = new TransportObserver() { };

    /** The transport this observer watches was opened; called once, before any other call. */
    default void transportOpened(String backend, String agentName) {
    }

    /** A transfer was submitted to {@code peerId}. */
    default void transferSubmitted(String peerId, long transferId, TransferOp op, int blocks, long bytes) {
    }

    /**
     * A transfer reached its terminal report.
     *
     * @param latencyNanos from submit to the poll that found it terminal
     */
    default void transferEnded(String peerId, long transferId, TransferOp op, int blocks, long bytes,
            long latencyNanos, boolean success) {
    }

    /** A transfer was cancelled before it was reported. */
    default void transferCancelled(String peerId, long transferId, TransferOp op, boolean stillInFlight) {
    }

    /**
     * Whether {@link #nativeTelemetry} should be called; a backend's telemetry costs a native call
     * per transfer.
     */
    default boolean wantsNativeTelemetry() {
        return false;
    }

    /**
     * A backend's own measurement of a completed transfer (NIXL's telemetry, for instance).
     *
     * @param postMicros time spent posting the transfer
     * @param transferMicros time from post to completion
     * @param bytes bytes moved
     * @param descriptors native descriptors after merging contiguous blocks
     */
    default void nativeTelemetry(String peerId, long transferId, long postMicros, long transferMicros, long bytes,
            long descriptors) {
    }

    /** A peer registration finished: published, failed, or superseded. */
    default void peerRegistered(String peerId, int blocks, long durationNanos, boolean published) {
    }

    /** A peer was removed; {@code endedTransfers} of its transfers were still unreported. */
    default void peerRemoved(String peerId, int endedTransfers) {
    }

    /** A peer started failing (native errors or a missed deadline); reported once per change. */
    default void peerFailing(String peerId, String reason) {
    }

    /** A failing peer completed a transfer again. */
    default void peerRecovered(String peerId) {
    }

    /**
     * A notification was handed to the backend for {@code peerId}: with a transfer
     * ({@code transferId} its id) or on its own ({@link Notification.Kind#MESSAGE}, id -1).
     */
    default void notificationSent(String peerId, Notification.Kind kind, long transferId, int bytes) {
    }

    /** A notification from {@code sender} passed its checks and was queued. */
    default void notificationReceived(String sender, Notification.Kind kind, long transferId, int bytes) {
    }

    /**
     * A received notification failed a check and was not delivered.
     *
     * @param sender the name it claimed, or the backend's name for its sender, or "?"
     * @param reason one of MALFORMED, MISDIRECTED, UNSIGNED, FORGED, REPLAYED, STALE, TOO_MANY_STREAMS
     */
    default void notificationRefused(String sender, String reason) {
    }

    /** A notification from {@code sender} passed its checks but found the queue full, and was dropped. */
    default void notificationDropped(String sender) {
    }
}
