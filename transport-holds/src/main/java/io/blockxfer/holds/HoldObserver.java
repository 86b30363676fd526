package io.blockxfer.holds;

/**
 * Receives what a {@link Holds} does, for metrics: holds created and ended (with their blocks and
 * bytes, per peer), renewals, leases ended, transfers a lease refused, messages refused. Set one
 * with {@link Holds.Builder#observer(HoldObserver)}; {@code transport-micrometer}'s
 * {@code MicrometerHoldObserver} turns the calls into meters. JFR events are recorded besides,
 * whatever the observer.
 *
 * <p>Calls come on the threads that create, renew, release and tick, after the holds' locks are
 * released; implementations must be fast, must not block and must not throw (a throw is caught and
 * logged once). Every method has an empty default.
 *
 * <p><b>Thread safety:</b> implementations must be thread-safe.
 */
public interface HoldObserver {

    /** Observes nothing; the default. */
    HoldObserver NONE = new HoldObserver() { };

    /** The holds over the transport of agent {@code agent} were built; called once, before any other call. */
    default void holdsOpened(String agent) {
    }

    /** This owner created a hold of {@code blocks} blocks ({@code bytes} bytes) for {@code peer}. */
    default void holdCreated(String peer, int blocks, long bytes) {
    }

    /** A hold of this owner ended; called once per hold. */
    default void holdEnded(HoldEnd end) {
    }

    /** This owner renewed {@code holds} holds of {@code peer} on one request. */
    default void renewalsGranted(String peer, int holds) {
    }

    /** This holder asked {@code owner} to renew {@code holds} leases in {@code messages} notifications of {@code bytes}. */
    default void renewalsSent(String owner, int holds, int messages, int bytes) {
    }

    /** A lease of this holder ended, for {@code reason}. */
    default void leaseEnded(String owner, Lease.EndReason reason, int blocks) {
    }

    /** A transfer under a lease of {@code owner} was refused or failed because the lease no longer covered it. */
    default void transferRefused(String owner, Lease.EndReason why) {
    }

    /**
     * A hold message from {@code sender} was refused: {@code why} is one of MALFORMED,
     * UNAUTHENTICATED, STALE (of a hold that ended or that the owner does not know), WRONG_PEER.
     */
    default void messageRefused(String sender, String why) {
    }
}
