package io.blockxfer.directory;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongFunction;
import org.jspecify.annotations.Nullable;

/**
 * A client of a distributed directory (etcd, or the in-memory one of
 * {@code io.blockxfer.directory.memory}; later Consul, ZooKeeper, Kubernetes), connected to one
 * deployment: the keys under one {@link #prefix()}. A process {@linkplain #publish publishes} its
 * entry under its member id with a lease that the directory keeps alive while the process lives,
 * and {@linkplain #watch watches} the deployment's members. The directory is an existing
 * distributed engine: consensus, leases and revisions are its own; an implementation only maps
 * this interface onto it. {@link Membership} is built on it; the conformance kit's
 * {@code DirectoryConformanceSuite} certifies an implementation.
 *
 * <p><b>The contract.</b>
 * <ul>
 *   <li><b>Keys.</b> A member's entry lives at {@code prefix() + memberId}, and a member of a
 *       group's also at its group key ({@link DirectoryScope}). Keys written by
 *       others (raw writes, other tools) may hold anything and are delivered as they are; checking
 *       them is the reader's job ({@link MemberEntry}, {@link Membership}).</li>
 *   <li><b>Revisions.</b> A revision is the directory's own logical clock: a positive number that
 *       grows with every change of the directory (etcd's store revision). Every listing and every
 *       event carries one; the revision of an entry is that of its last write.</li>
 *   <li><b>Leases.</b> {@link #publish} attaches the entry to a lease of the given TTL, which the
 *       implementation keeps alive (renews well before it expires, e.g. every TTL/3) until the
 *       {@link Publication} is closed, which revokes the lease and so deletes the entry (goodbye),
 *       or until the lease is lost: it expired (the process was cut off or paused for longer than
 *       the TTL) or was revoked by someone else. A lost lease is reported once to its
 *       {@link PublicationListener} and never renewed again: the publisher publishes anew. A
 *       process that dies without a goodbye leaves its entry until the TTL runs out; etcd resets
 *       every lease to its full TTL when its leader changes, so removal can take up to about two
 *       TTLs. The lease is granted before the value is made: {@link #publish(String, LongFunction,
 *       Duration, PublicationListener) publish} hands its id to the caller, who binds the value to
 *       it (a {@link MemberEntry} signs it), and every listing and event reports the lease a key
 *       is attached to ({@link DirectoryEntry#lease()}, {@link DirectoryEvent#lease()}; 0 for a
 *       key written without one), so that a reader can tell an entry on its publisher's live
 *       lease from a copy written back by someone else.</li>
 *   <li><b>Watches.</b> See {@link DirectoryListener}: a snapshot with its revision, then ordered
 *       put and delete events; a reconnect resumes from the last revision delivered, and where the
 *       directory can no longer replay it (compaction) a new listing's differences are delivered
 *       as events, so nothing is missed and nothing applied twice.
 *       {@link DirectoryDispatcher} implements this part for every implementation.</li>
 *   <li><b>Threads.</b> Listener callbacks run on a thread of the directory's own (one per
 *       client; never a client library's event loop, never the caller's), one at a time, in order.
 *       A listener that throws is logged and the next callback still comes.</li>
 *   <li><b>Time limits.</b> {@link #publish}, {@link #watch} and {@link Publication#close()} wait
 *       for the directory at most {@link #operationTimeout()}; an unreachable directory is a
 *       {@link DirectoryUnavailableException} whose message includes this directory's
 *       {@code toString()} (which names its endpoints and prefix), never a hang.</li>
 *   <li><b>Bad arguments</b> ({@link DirectoryLimits}) are {@link IllegalArgumentException}s, and
 *       every call after {@link #close()} throws {@link IllegalStateException}.</li>
 * </ul>
 *
 * <p><b>Thread safety:</b> implementations are thread-safe.
 */
public interface Directory extends AutoCloseable {

    /** The deployment's prefix; see {@link DirectoryLimits} for its form. Answers after close too. */
    String prefix();

    /** How long a call waits for the directory before it fails; positive. */
    Duration operationTimeout();

    /**
     * Grants a new lease of {@code ttl}, asks {@code value} for the value to store with the
     * lease's id, and writes it under {@code prefix() + memberId}, attached to that lease, which is
     * kept alive until the returned publication is closed or its lease is lost. Returns once the
     * directory has stored the entry. An existing entry under the key is replaced (and from then
     * on belongs to the new lease). The value function runs once, on the calling thread, between
     * the grant and the write; the publication keeps the value it returned (for
     * {@link Publication#restore()}).
     *
     * @param memberId the member id (see {@link DirectoryLimits#checkMemberId})
     * @param value makes the value from the lease's id (positive): at most
     *     {@link DirectoryLimits#MAX_VALUE_BYTES} bytes, not null; copied
     * @param ttl the lease's time to live (see {@link DirectoryLimits#checkTtl})
     * @param listener told, on the directory's thread, if the lease is lost
     * @throws IllegalArgumentException if the member id or TTL is out of range, or the value made
     *     is; the lease is revoked then and nothing is published
     * @throws DirectoryUnavailableException if the directory did not store the entry within
     *     {@link #operationTimeout()}; nothing is published then (a late write, if any, expires
     *     with its lease)
     * @throws IllegalStateException if this directory is closed
     * @throws NullPointerException if an argument, or the value made, is null
     */
    default Publication publish(String memberId, LongFunction<byte[]> value, Duration ttl,
            PublicationListener listener) {
        return publish(memberId, null, value, ttl, listener);
    }

    /**
     * As {@link #publish(String, LongFunction, Duration, PublicationListener)}, and with a
     * {@code group}, also writes the same value under the member's group key
     * ({@link DirectoryScope#groupKey}) attached to the same lease, in the same atomic write: both
     * keys exist from the same revision on, {@link Publication#restore()} writes both again, and
     * the lease's end deletes both.
     *
     * @param group the member's group, or null for none (see {@link DirectoryLimits#checkGroup})
     * @throws IllegalArgumentException if the member id, group or TTL is out of range, or the value
     *     made is; the lease is revoked then and nothing is published
     * @throws DirectoryUnavailableException if the directory did not store the entry within
     *     {@link #operationTimeout()}
     * @throws IllegalStateException if this directory is closed
     * @throws NullPointerException if an argument but the group, or the value made, is null
     */
    Publication publish(String memberId, @Nullable String group, LongFunction<byte[]> value, Duration ttl,
            PublicationListener listener);

    /**
     * Writes {@code value} (copied) under {@code prefix() + memberId}, attached to a new lease of
     * {@code ttl}: {@link #publish(String, LongFunction, Duration, PublicationListener)} with a
     * value that does not depend on the lease.
     *
     * @throws IllegalArgumentException if the member id, value or TTL is out of range
     * @throws DirectoryUnavailableException if the directory did not store the entry in time
     * @throws IllegalStateException if this directory is closed
     * @throws NullPointerException if an argument is null
     */
    default Publication publish(String memberId, byte[] value, Duration ttl, PublicationListener listener) {
        byte[] copy = DirectoryLimits.checkValue(java.util.Objects.requireNonNull(value, "value")).clone();
        return publish(memberId, lease -> copy, ttl, listener); // which checks the rest
    }

    /**
     * Watches every member key under {@link #prefix()} ({@link DirectoryScope#members()}: not the
     * group keys): lists them, then follows their changes, telling
     * {@code listener} on the directory's thread (see {@link DirectoryListener} for the order).
     * Returns once the listing is done; its snapshot callback may come before or after the return.
     *
     * @throws DirectoryUnavailableException if the directory could not be listed within
     *     {@link #operationTimeout()}
     * @throws IllegalStateException if this directory is closed
     * @throws NullPointerException if the listener is null
     */
    default DirectoryWatch watch(DirectoryListener listener) {
        return watch(DirectoryScope.members(), listener);
    }

    /**
     * Watches the keys of {@code scope} (one range of keys under {@link #prefix()}, followed with one
     * watch of the directory): lists them, then follows their changes, as
     * {@link #watch(DirectoryListener)} does for every member. A scope of one key whose key does
     * not exist yields an empty snapshot, and then that key's changes.
     *
     * @throws DirectoryUnavailableException if the scope could not be listed within
     *     {@link #operationTimeout()}
     * @throws IllegalStateException if this directory is closed
     * @throws NullPointerException if an argument is null
     */
    DirectoryWatch watch(DirectoryScope scope, DirectoryListener listener);

    /**
     * Reads the keys of {@code scope} once, at one revision: what a new watch's snapshot would hold
     * now (linearizable: nothing older than what any client has seen). Nothing waits on the calling
     * thread: the future completes when the directory answers, on a thread of the directory or of
     * its client library (hand anything but a short, non-blocking step over to a thread of your
     * own), or fails with a {@link DirectoryUnavailableException} naming the directory when it
     * could not answer within {@link #operationTimeout()}. One read of one member's key is what a
     * resolution costs ({@link Membership#resolve}).
     *
     * <p>The default watches the scope on a virtual thread and completes with the watch's snapshot;
     * implementations read directly.
     *
     * @throws IllegalStateException if this directory is closed (the default fails the future
     *     with it instead)
     * @throws NullPointerException if the scope is null
     */
    default CompletableFuture<DirectorySnapshot> read(DirectoryScope scope) {
        Objects.requireNonNull(scope, "scope");
        CompletableFuture<DirectorySnapshot> read = new CompletableFuture<>();
        Thread.ofVirtual().name("blockxfer-directory-read").start(() -> {
            try {
                DirectoryWatch w = watch(scope, new DirectoryListener() {
                    @Override
                    public void snapshot(DirectorySnapshot snapshot) {
                        read.complete(snapshot);
                    }

                    @Override
                    public void changed(DirectoryEvent event) {
                    }
                });
                var unused = read.whenComplete((snapshot, e) -> w.close());
            } catch (RuntimeException e) {
                read.completeExceptionally(e);
            }
        });
        return read;
    }

    /**
     * Watches the keys of {@code scope} from a {@link #read} of them: the listener's snapshot is
     * {@code from}, and every change after {@code from.revision()} follows, as
     * {@link #watch(DirectoryScope, DirectoryListener)} delivers them (a change made between the
     * read and this call included; where the directory's history no longer reaches back to
     * {@code from}, the differences arrive as a resync). Returns at once, without waiting for the
     * directory: a watch that cannot start now reports {@link DirectoryListener#disconnected} and
     * starts when the directory is back.
     *
     * <p>The default opens {@link #watch(DirectoryScope, DirectoryListener)} on a virtual thread and
     * turns its snapshot into the differences from {@code from}; implementations watch from
     * {@code from.revision() + 1} directly.
     *
     * @throws IllegalStateException if this directory is closed
     * @throws NullPointerException if an argument is null
     */
    default DirectoryWatch watch(DirectoryScope scope, DirectorySnapshot from, DirectoryListener listener) {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(listener, "listener");
        SnapshotBridge bridge = new SnapshotBridge(from, listener);
        bridge.open(() -> watch(scope, bridge));
        return bridge;
    }

    /**
     * Closes every publication of this client (goodbye: their entries are deleted) and every
     * watch, and releases the connection and the callback thread. Idempotent; never throws for an
     * unreachable directory (its leases then expire on their own).
     */
    @Override
    void close();
}
