package io.blockxfer.directory;

/**
 * Told when a {@link Publication}'s lease is lost.
 *
 * <p><b>Thread safety:</b> called on the directory's own thread, at most once per publication;
 * implementations need not be thread-safe unless they are shared.
 */
@FunctionalInterface
public interface PublicationListener {

    /** Ignores everything. */
    PublicationListener NONE = (publication, reason) -> { };

    /**
     * The lease of {@code publication} expired or was revoked by someone else: its entry is gone
     * (or will be) and is no longer kept alive. Publish again to be seen again.
     *
     * @param reason what the directory said, for logs
     */
    void leaseLost(Publication publication, String reason);
}
