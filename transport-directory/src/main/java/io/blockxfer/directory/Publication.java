package io.blockxfer.directory;

import java.time.Duration;

/**
 * One entry published under a lease by {@link Directory#publish}: alive until it is closed or its
 * lease is lost.
 *
 * <p><b>Thread safety:</b> implementations are thread-safe.
 */
public interface Publication extends AutoCloseable {

    /** The member id the entry is published under. */
    String memberId();

    /** The entry's full key: the directory's prefix and the member id. */
    String key();

    /** The lease's time to live. */
    Duration ttl();

    /**
     * The revision at which the entry was written. Events of the key at or below it are older than
     * this publication; a delete of the key above it means the entry is gone.
     */
    long revision();

    /**
     * The id of the lease the entry is attached to, as the directory reports it for the key
     * ({@link DirectoryEntry#lease()}); positive. The value was made for it (see
     * {@link Directory#publish(String, java.util.function.LongFunction, Duration, PublicationListener)}).
     */
    long lease();

    /**
     * Writes the entry's value again under its key and lease, as it was published: for a
     * publisher whose key was overwritten or deleted by someone else while its lease lives.
     * Nothing else changes (no new lease, no new value). Waits for the directory at most its
     * {@link Directory#operationTimeout()}.
     *
     * @return the revision of the write
     * @throws DirectoryUnavailableException if the directory did not store it in time
     * @throws IllegalStateException if the publication is closed, or its lease is lost (also when
     *     the directory answers now that it no longer holds the lease: the publication is lost
     *     then, and its listener is told, once, as for any loss)
     */
    long restore();

    /**
     * Deletes the entry's keys (its member key and, with a group, its group key, in one atomic
     * write) if the member key's last write is still the one at {@code revision} (0: the key does
     * not exist), and does nothing otherwise: the part of a goodbye that must not delete someone
     * else's later write, and must not leave a key behind that a stranger detached from the lease
     * (the revoke of {@link #close()} deletes only the keys still attached to it). The lease stays;
     * close revokes it. Waits for the directory at most its {@link Directory#operationTimeout()}.
     *
     * @param revision the revision of the member key's last write as the caller knows it: the
     *     publication's, a {@link #restore()}'s, or one its watch delivered
     * @return whether the keys were deleted
     * @throws DirectoryUnavailableException if the directory did not answer in time
     * @throws IllegalStateException if the publication is closed or lost
     */
    boolean deleteIfAt(long revision);

    /**
     * Whether the lease was lost (expired or revoked by someone else): the entry is gone or going,
     * and will not come back by itself. A closed publication is not lost.
     */
    boolean isLost();

    /**
     * Revokes the lease, which deletes the entry: the goodbye every watcher sees as a delete.
     * Waits for the directory at most its {@link Directory#operationTimeout()}; when it cannot be
     * reached the lease is left to expire, and close still returns normally. Idempotent; after a
     * lost lease it does nothing more.
     */
    @Override
    void close();
}
