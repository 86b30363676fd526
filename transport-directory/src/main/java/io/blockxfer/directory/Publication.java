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
