package io.blockxfer.directory;

/**
 * Receives a {@link Directory#watch}: first one {@link #snapshot}, then, in order, the changes of
 * the watched keys, and the watch's losses and returns of the directory.
 *
 * <p><b>Order and exactness.</b> Callbacks come one at a time, on the directory's own thread,
 * never concurrently. {@link #snapshot} comes first and once. Every {@link #changed} event after it
 * has a revision above the snapshot's and no lower than the event before it; events of one
 * revision (one transaction of the directory) differ in their keys; no (key, revision) is
 * delivered twice; a put never follows a later put or delete of the same key. Applying the events,
 * in order, to the snapshot gives the directory's content at the last revision delivered: nothing
 * is missed and nothing is applied twice, also across reconnects.
 *
 * <p><b>Reconnects.</b> When the watch loses the directory, {@link #disconnected} comes once and no
 * event follows until {@link #reconnected}. On return the watch resumes from the revision after the
 * last one delivered, and the changes made meanwhile follow as ordinary events
 * ({@code reconnected(revision, false)}). Where the directory can no longer replay them (its
 * history was compacted past that revision) the watch lists the keys again, and
 * {@code reconnected(listingRevision, true)} is followed by the differences between what was
 * delivered and the listing, as events marked {@link DirectoryEvent#isResync()}: puts of the
 * entries created or changed, in the order of their revisions, then deletes of the entries gone,
 * at the listing's revision. Live events follow.
 *
 * <p>A callback that throws is logged; the watch goes on with the next callback.
 *
 * <p><b>Thread safety:</b> called on one thread at a time (the directory's); implementations need
 * not be thread-safe unless they are shared.
 */
public interface DirectoryListener {

    /** Every entry under the prefix when the watch started, and the revision of that listing. */
    void snapshot(DirectorySnapshot snapshot);

    /** A put or delete under the prefix, in order (see the class comment). */
    void changed(DirectoryEvent event);

    /**
     * The watch lost the directory; it is reconnecting by itself. Nothing is delivered until
     * {@link #reconnected}.
     *
     * @param reason what failed, for logs
     */
    default void disconnected(String reason) {
    }

    /**
     * The watch is back.
     *
     * @param revision the last revision delivered before it, when resumed; the revision of the new
     *     listing, when resynced
     * @param resync whether the watch could not resume and listed the keys again; the differences
     *     follow as events marked {@link DirectoryEvent#isResync()}
     */
    default void reconnected(long revision, boolean resync) {
    }
}
