package io.blockxfer.transport;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;

/**
 * A transport that owns one local {@link BlockRegion} and moves whole blocks one-sided between it
 * and the regions of registered peers.
 *
 * <p>Lifecycle: open (through {@link Transports} or a provider) &rarr; publish
 * {@link #localDescriptor()} to peers over your own control plane &rarr; {@link #addPeer} each
 * peer &rarr; {@link #writeBlocks}/{@link #readBlocks}, {@link #poll(String)} and {@link #cancel}
 * &rarr; {@link #removePeer} (once {@link #traffic} says the peer is idle, where that matters)
 * &rarr; {@link #close()}.
 *
 * <p>Contract, shared by every backend and checked by the conformance kit:
 * <ul>
 *   <li><b>Exactly once.</b> Every id returned by a submit reaches exactly one terminal report,
 *       {@code done} or {@code failed}, from a poll or wait of its own peer or of every peer
 *       ({@link #pollAll()}), or, for an asynchronous submit, its {@link TransferFuture}, unless
 *       {@link #cancel} released it or {@link #close()} ended it. Ids are unique for the life of
 *       the transport and increase.</li>
 *   <li><b>Errors are outcomes.</b> A native error while submitting, checking or releasing a
 *       transfer becomes a {@code failed} report; it is never thrown from a submit or a poll.
 *       Misuse (bad indices, null arguments, a closed transport) throws
 *       {@link IllegalArgumentException}, {@link NullPointerException} or
 *       {@link IllegalStateException} naming the problem, and changes nothing.</li>
 *   <li><b>Terminal within a deadline.</b> A transfer still in flight after
 *       {@link TransportConfig#transferTimeout()} is reported {@code failed} by the next poll of
 *       its peer, and the peer's native connection is aborted.</li>
 *   <li><b>No unsafe release.</b> A native handle still in flight is never freed: a cancelled or
 *       abandoned transfer stays owned by the transport until the native layer reports it
 *       terminal, and {@link #close()} waits for it (bounded). Bytes of a cancelled or failed
 *       WRITE may still land in the peer's region, and bytes of a cancelled or failed READ may
 *       still land in the local blocks until the native layer lets go.</li>
 * </ul>
 *
 * <p>Three ways to learn that transfers ended, each id going to exactly one of them:
 * <ul>
 *   <li><b>Poll</b> ({@link #poll(String)} and its forms): never blocks; reports what ended since
 *       the last report.</li>
 *   <li><b>Wait</b> ({@link #poll(String, long, TimeUnit)} and its forms): as poll, but blocks,
 *       without spinning a core, until at least one transfer of its scope ended, the limit passed,
 *       the thread was interrupted or the transport closed. Polls and waits share one stream of
 *       reports: each terminal transfer reaches exactly one of them.</li>
 *   <li><b>Future</b> ({@link #writeBlocksAsync}, {@link #readBlocksAsync}): the transfer's own
 *       {@link TransferFuture}, never reported by a poll or a wait.</li>
 * </ul>
 *
 * <p><b>Notifications</b> (the target's side of a transfer, with {@link Capability#NOTIFICATIONS}): a
 * WRITE or READ may carry a short message ({@link #writeBlocks(String, int[], int[], byte[])} and
 * its forms) that the peer whose blocks were written or read receives only after every byte of that
 * transfer is visible in its region, exactly once for each such transfer that its initiator reports
 * done, never for one refused at submit or reported failed by the backend; a message can also be
 * sent on its own ({@link #sendNotification}). The receiver takes them as it takes completions: a
 * poll with a handler ({@link #pollNotifications(NotificationHandler)}), a poll that waits
 * ({@link #pollNotifications(NotificationHandler, long, TimeUnit)}), or a subscription
 * ({@link #notifications()}), each notification reaching exactly one of them. Nothing is ordered
 * across transfers: a notification follows its own transfer's bytes, not earlier transfers'. The
 * guide docs/notifications.md has the whole contract (authentication, bounds, close).
 *
 * <p><b>Thread safety:</b> thread-safe. Many peer sessions share one transport: submits, polls,
 * waits and cancels may run concurrently from any threads, platform or virtual, for the same or
 * different peers. {@link #close()} may race with any call; calls that lose the race throw
 * {@link IllegalStateException}.
 */
public interface DataTransport extends AutoCloseable {

    /** Returned by {@link #writeBlocks} and {@link #readBlocks} when the peer is not registered. */
    long NOT_SUBMITTED = -1L;

    /** The longest limit a wait accepts (24 hours); a longer one is a mistake, refused. */
    Duration MAX_WAIT = Duration.ofHours(24);

    /** The provider name of this transport's backend, e.g. {@code "loopback"}. */
    String backendName();

    /**
     * The agent name this transport was opened with ({@link TransportConfig#agentName()}), unique
     * per process; a directory membership publishes under it unless told otherwise. Answers after
     * {@link #close()} too.
     */
    String agentName();

    /** This transport's local block region. */
    BlockRegion region();

    /**
     * The fingerprint of the config fields this transport was opened with: the first 16 hex
     * characters of the SHA-256 of their canonical JSON, or {@code ""} when there are none.
     *
     * @see ConfigFingerprint
     */
    String configFingerprint();

    /** The opaque bytes a remote needs to reach this transport (the seed's agent metadata). */
    byte[] agentMetadata();

    /**
     * Everything a remote needs for {@link #addPeer}: metadata, base address, block count,
     * block length, fingerprint and backend. {@link PeerDescriptor#encode()} makes one blob of it.
     * Signed with the signing key when the transport has a {@link TransportConfig#keyRing()}.
     */
    PeerDescriptor localDescriptor();

    /**
     * Registers a remote region under {@code peerId}; O(number of remote blocks) native work on
     * the calling thread. Re-adding a registered peer replaces it: the old registration is torn
     * down first and its in-flight transfers are reported {@code failed}.
     *
     * @throws UnauthenticatedPeerException if the transport has a {@link TransportConfig#keyRing()}
     *     and the descriptor is unsigned (unless {@link TransportConfig#acceptUnsignedPeers()}),
     *     signed with a key not in the ring, or changed after signing; checked before anything
     *     native runs, and nothing changes
     * @throws IncompatiblePeerException if the backend, block length or fingerprint differ
     * @throws MalformedPeerDescriptorException if the backend's metadata inside is unusable
     * @throws PeerRegistrationException if the native registration fails
     * @throws RegistrationSupersededException if a concurrent remove or re-add superseded it
     */
    void addPeer(String peerId, PeerDescriptor peer);

    /**
     * As {@link #addPeer}, but the native work runs on this transport's single registration
     * thread. Argument, authentication and compatibility checks happen on the calling thread and
     * throw. Each call
     * claims a new generation for the peer; a registration that a later {@link #removePeer} or add
     * of the same peer supersedes releases what it built and completes its future exceptionally
     * with {@link RegistrationSupersededException}.
     */
    CompletableFuture<Void> addPeerAsync(String peerId, PeerDescriptor peer);

    /**
     * Unregisters a peer. Its transfers still in flight are aborted where the backend can and
     * reported {@code failed} by the next {@link #poll(String) poll(peerId)} or
     * {@link #pollAll()}; other peers are untouched. A registration of this peer still being built
     * is superseded.
     *
     * @return whether the peer was registered
     */
    boolean removePeer(String peerId);

    /**
     * What the transfers of {@code peerId} are doing now: how many were submitted since the peer
     * was last added, and how many of those have not ended yet (see {@link PeerTraffic}), so that a
     * caller can tell an idle peer before it calls {@link #removePeer}. Empty when the peer is not
     * registered: never added, removed, or its registration not complete yet; a removed peer's
     * owed reports do not make it registered. Cheap: one status read per transfer of the peer not
     * yet reported (the read a poll makes; nothing is reported or released), never waits for a
     * transfer, allocates only the answer; safe from any thread, concurrently with submits and
     * polls of the same peer.
     *
     * @throws IllegalStateException if the transport is closed
     * @throws NullPointerException if {@code peerId} is null
     */
    Optional<PeerTraffic> traffic(String peerId);

    /**
     * Submits one WRITE of local block {@code localBlocks[i]} to remote block
     * {@code remoteBlocks[i]} for every {@code i}. Never blocks on the network. The arrays are
     * read during the call only.
     *
     * @return the transfer id, or {@link #NOT_SUBMITTED} when {@code peerId} is not registered
     * @throws IllegalArgumentException if an index is out of range on either side, the arrays
     *     differ in length or are empty
     */
    long writeBlocks(String peerId, int[] localBlocks, int[] remoteBlocks);

    /**
     * Submits one READ of remote block {@code remoteBlocks[i]} into local block
     * {@code localBlocks[i]} for every {@code i}; otherwise as {@link #writeBlocks}.
     *
     * @throws UnsupportedOperationException if the backend lacks {@link Capability#READ}
     */
    long readBlocks(String peerId, int[] localBlocks, int[] remoteBlocks);

    /**
     * Reports the transfers of {@code peerId} that became terminal since the last report, and
     * forgets them. Never reports another peer's transfers. Returns {@link PollResult#EMPTY} when
     * there is nothing new, including for an unknown peer.
     */
    PollResult poll(String peerId);

    /**
     * The allocation-free form of {@link #poll(String)}: calls {@code handler} once per terminal
     * transfer of {@code peerId}, on the calling thread, after the transport's locks are released.
     *
     * @return how many transfers were reported
     */
    int poll(String peerId, CompletionHandler handler);

    /** {@link #poll(String)} over every peer, including removed ones still owing reports. */
    PollResult pollAll();

    /** The allocation-free form of {@link #pollAll()}. */
    int pollAll(CompletionHandler handler);

    /**
     * Waits until at least one transfer of {@code peerId} ended, then reports as
     * {@link #poll(String)} does: what ended since the last report, each id once. Returns
     * {@link PollResult#EMPTY} when {@code timeout} passes with nothing to report, and at once when
     * the peer is not registered and owes no reports. A limit of 0 is a plain poll. Parks the
     * calling thread (a virtual thread unmounts from its carrier) until the backend signals a
     * completion; spins briefly first, so a transfer that ends within microseconds costs no
     * park. While it is parked, the backend drives transfers to their end by itself.
     *
     * <p>Interrupted (before or while waiting), it throws {@link InterruptedException} with the
     * thread's interrupt status cleared, and consumes nothing: what ended is reported by the next
     * poll or wait. When {@link #close()} ends the wait, it throws {@link IllegalStateException}
     * saying the transport closed while it waited; the transfers it waited for end with the close,
     * unreported, as every id not yet reported does.
     *
     * @throws IllegalArgumentException if {@code timeout} is negative or longer than
     *     {@link #MAX_WAIT}; nothing changes
     * @throws IllegalStateException if the transport is closed, or closes while this waits
     * @throws InterruptedException if the thread is interrupted
     */
    PollResult poll(String peerId, long timeout, TimeUnit unit) throws InterruptedException;

    /**
     * The allocation-free form of {@link #poll(String, long, TimeUnit)}: calls {@code handler} once
     * per terminal transfer of {@code peerId}, on the calling thread, after the transport's locks
     * are released.
     *
     * @return how many transfers were reported; 0 when the limit passed
     */
    int poll(String peerId, CompletionHandler handler, long timeout, TimeUnit unit) throws InterruptedException;

    /**
     * {@link #poll(String, long, TimeUnit)} over every peer, including removed ones still owing
     * reports: returns as soon as any transfer ended.
     */
    PollResult pollAll(long timeout, TimeUnit unit) throws InterruptedException;

    /** The allocation-free form of {@link #pollAll(long, TimeUnit)}. */
    int pollAll(CompletionHandler handler, long timeout, TimeUnit unit) throws InterruptedException;

    /**
     * As {@link #writeBlocks}, but the transfer's outcome completes the returned future instead of
     * being reported by a poll or a wait. Argument errors throw as {@link #writeBlocks} does; a
     * peer that is not registered gives a future already failed
     * ({@link TransferFuture#notSubmitted}). A {@link #cancel} naming its id in
     * {@link CancelMode#IMMEDIATE} mode cancels the future; in {@link CancelMode#WAIT} mode the id
     * is returned while in flight, and the future completes when it ends. {@link #close()} fails
     * the futures still pending with an {@link IllegalStateException}.
     */
    TransferFuture writeBlocksAsync(String peerId, int[] localBlocks, int[] remoteBlocks);

    /**
     * As {@link #readBlocks}, with the outcome delivered as {@link #writeBlocksAsync} delivers it.
     *
     * @throws UnsupportedOperationException if the backend lacks {@link Capability#READ}
     */
    TransferFuture readBlocksAsync(String peerId, int[] localBlocks, int[] remoteBlocks);

    /**
     * As {@link #writeBlocks(String, int[], int[])}, and the peer receives {@code notification}
     * once every byte of this WRITE is visible in its region, as a {@link Notification} of kind
     * {@link Notification.Kind#WRITE} carrying this transfer's id: exactly once if this transfer is
     * reported done, never if it is refused here or reported failed by the backend. A transfer
     * cancelled or failed by its deadline while its native operation runs on may still deliver it,
     * at most once and after its bytes, as the bytes themselves may still land. The array is read
     * during the call only.
     *
     * @return the transfer id, or {@link #NOT_SUBMITTED} when {@code peerId} is not registered
     *     (nothing is sent then)
     * @throws IllegalArgumentException as {@link #writeBlocks(String, int[], int[])} does, or if the
     *     notification is longer than {@link Notification#MAX_PAYLOAD_BYTES}; nothing is submitted
     * @throws UnsupportedOperationException if the backend lacks {@link Capability#NOTIFICATIONS}
     */
    long writeBlocks(String peerId, int[] localBlocks, int[] remoteBlocks, byte[] notification);

    /**
     * As {@link #readBlocks(String, int[], int[])}, and the peer whose blocks are read receives
     * {@code notification} once this READ ended, as a {@link Notification} of kind
     * {@link Notification.Kind#READ}, with the guarantees of
     * {@link #writeBlocks(String, int[], int[], byte[])}.
     *
     * @throws UnsupportedOperationException if the backend lacks {@link Capability#READ} or
     *     {@link Capability#NOTIFICATIONS}
     */
    long readBlocks(String peerId, int[] localBlocks, int[] remoteBlocks, byte[] notification);

    /**
     * As {@link #writeBlocksAsync(String, int[], int[])}, carrying a notification as
     * {@link #writeBlocks(String, int[], int[], byte[])} does.
     */
    TransferFuture writeBlocksAsync(String peerId, int[] localBlocks, int[] remoteBlocks, byte[] notification);

    /**
     * As {@link #readBlocksAsync(String, int[], int[])}, carrying a notification as
     * {@link #readBlocks(String, int[], int[], byte[])} does.
     */
    TransferFuture readBlocksAsync(String peerId, int[] localBlocks, int[] remoteBlocks, byte[] notification);

    /**
     * Sends a message without a transfer ("done reading", "cancelled", "failed") to a registered
     * peer, which receives it once as a {@link Notification} of kind
     * {@link Notification.Kind#MESSAGE}. Never blocks on the network; nothing orders it against
     * transfers in flight. Delivery is not confirmed: the peer may be dead or drop it (its queue
     * full, where it counts it).
     *
     * @return true when it was handed to the backend; false when {@code peerId} is not registered or
     *     its connection refused it (logged once per change of the peer's state)
     * @throws IllegalArgumentException if the payload is longer than {@link Notification#MAX_PAYLOAD_BYTES}
     * @throws UnsupportedOperationException if the backend lacks {@link Capability#NOTIFICATIONS}
     * @throws IllegalStateException if the transport is closed
     */
    boolean sendNotification(String peerId, byte[] payload);

    /**
     * Calls {@code handler} once for each notification received and not yet delivered, in the order
     * they arrived, on the calling thread, after the transport's locks are released. Never blocks.
     * Lets the calling thread drive the backend first where the backend allows, as a poll does.
     *
     * @return how many notifications were delivered
     * @throws IllegalStateException if the transport is closed
     */
    int pollNotifications(NotificationHandler handler);

    /**
     * As {@link #pollNotifications(NotificationHandler)}, but waits, without spinning a core, until
     * at least one notification arrived, the limit passed, the thread was interrupted or the
     * transport closed, with the rules of {@link #poll(String, long, TimeUnit)}: a limit of 0 is a
     * plain poll, an interrupt throws {@link InterruptedException} and consumes nothing, a close
     * throws {@link IllegalStateException}; a virtual thread unmounts while it waits.
     *
     * @return how many notifications were delivered; 0 when the limit passed
     * @throws IllegalArgumentException if {@code timeout} is negative or longer than {@link #MAX_WAIT}
     */
    int pollNotifications(NotificationHandler handler, long timeout, TimeUnit unit) throws InterruptedException;

    /**
     * The received notifications as a {@link Flow.Publisher}, for one subscriber at a time: a
     * second concurrent subscriber is refused with {@link IllegalStateException} through its
     * {@code onError}. Notifications go to the subscriber as it requests them, in the order they
     * arrived, on a thread of the transport (never inside a native callback); those not requested
     * wait in the transport's bounded queue, where polls may take them too. Cancelling the
     * subscription leaves what is queued to later polls or subscribers. {@link #close()} completes
     * the subscriber ({@code onComplete}); notifications still queued then are discarded and
     * counted ({@link NotificationStats#discarded()}).
     *
     * @throws IllegalStateException if the transport is closed
     */
    Flow.Publisher<Notification> notifications();

    /**
     * The transport's notification counts so far. Cheap; answers after {@link #close()} too.
     */
    NotificationStats notificationStats();

    /**
     * Cancels transfers by id. Unknown and already reported ids are ignored.
     * <ul>
     *   <li>{@link CancelMode#IMMEDIATE}: none of {@code ids} is reported again. A transfer the
     *       native layer still has in flight stays owned by the transport until it is terminal.
     *       Returns an empty array.</li>
     *   <li>{@link CancelMode#WAIT}: terminal transfers are released and never reported; the ids
     *       still in flight are returned and will each be reported by a later poll.</li>
     * </ul>
     */
    long[] cancel(long[] ids, CancelMode mode);

    /**
     * Returns an optional feature of this backend, such as the loopback backend's fault
     * injection or a native backend's telemetry.
     */
    <T> Optional<T> feature(Class<T> type);

    /**
     * Releases everything: supersedes pending registrations, waits (bounded by
     * {@link TransportConfig#closeTimeout()}) for transfers in flight, removes every peer, frees
     * the region if the backend allocated it. Every id not yet reported ends here: threads waiting
     * in {@link #poll(String, long, TimeUnit)} and its forms are woken and throw
     * {@link IllegalStateException}, and pending {@link TransferFuture}s fail with one. Idempotent;
     * every other method throws {@link IllegalStateException} afterwards.
     */
    @Override
    void close();
}
