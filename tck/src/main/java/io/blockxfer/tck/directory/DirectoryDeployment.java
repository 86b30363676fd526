package io.blockxfer.tck.directory;

import io.blockxfer.directory.Directory;
import java.time.Duration;
import java.util.Set;

/**
 * One deployment of a {@link Directory} implementation, made fresh for each rule of the
 * conformance kit: it connects clients to one prefix, as separate processes would, lets time pass
 * on the directory's clock, and causes the faults it {@linkplain #faults() supports}. A hook whose
 * fault is not in {@link #faults()} is never called.
 *
 * <p><b>Thread safety:</b> implementations must be thread-safe: rules call hooks while clients'
 * callbacks run.
 */
public interface DirectoryDeployment extends AutoCloseable {

    /** The implementation and where it runs, for messages: {@code "etcd 3.4.23 (3 members)"}. */
    String name();

    /**
     * A new client of this deployment, connected to its prefix, as another process would make one.
     * The rule closes it (or {@linkplain #crash crashes} it); {@link #close()} closes any left.
     */
    Directory connect();

    /** The faults this deployment can cause. */
    Set<DirectoryFault> faults();

    /**
     * Lets {@code duration} pass on the directory's clock: advances a manual clock at once, or
     * sleeps where the directory runs on real time.
     */
    void elapse(Duration duration);

    /**
     * How much later than its TTL an abandoned lease may still hold its entry (etcd checks
     * expiries every half second and revokes at a bounded rate); one second unless overridden.
     */
    default Duration expiryGrace() {
        return Duration.ofSeconds(1);
    }

    /**
     * {@link DirectoryFault#OUTAGE}: {@code client} can no longer reach the directory: its calls
     * fail with {@code DirectoryUnavailableException}, its watches are disconnected and its leases
     * are no longer renewed (they expire if the outage outlasts their TTL), while the directory and
     * its other clients go on.
     */
    default void cutOff(Directory client) {
        throw new UnsupportedOperationException(name() + " cannot cut a client off");
    }

    /** {@link DirectoryFault#OUTAGE}: ends the outage of {@code client}; its watches reconnect. */
    default void reconnect(Directory client) {
        throw new UnsupportedOperationException(name() + " cannot cut a client off");
    }

    /**
     * {@link DirectoryFault#CRASH}: {@code client} stops as a killed process would: no goodbye, its
     * leases are no longer kept alive, its watches stop without a word, and it is closed.
     */
    default void crash(Directory client) {
        throw new UnsupportedOperationException(name() + " cannot crash a client");
    }

    /**
     * {@link DirectoryFault#LEASE_LOSS}: the directory revokes the lease that holds
     * {@code prefix + memberId} now, as if it had expired while its holder was paused: the entry is
     * deleted, and the holder learns its lease is lost.
     */
    default void loseLease(String memberId) {
        throw new UnsupportedOperationException(name() + " cannot revoke a lease");
    }

    /** {@link DirectoryFault#RAW_WRITE}: writes {@code value} under {@code key} without a lease. */
    default void putRaw(String key, byte[] value) {
        throw new UnsupportedOperationException(name() + " cannot write raw keys");
    }

    /** {@link DirectoryFault#RAW_WRITE}: deletes {@code key}. */
    default void deleteRaw(String key) {
        throw new UnsupportedOperationException(name() + " cannot delete raw keys");
    }

    /**
     * {@link DirectoryFault#COMPACTION}: the directory compacts its history up to its current
     * revision, so that a watch cannot resume from an earlier one.
     */
    default void compact() {
        throw new UnsupportedOperationException(name() + " cannot compact");
    }

    /**
     * Closes the clients still open and removes what the deployment wrote, raw writes included
     * (some rules write one key just outside the prefix, and delete it again themselves).
     */
    @Override
    void close();
}
