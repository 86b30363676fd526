package io.blockxfer.transport;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A transport that owns one local {@link BlockRegion} and moves whole blocks one-sided between it
 * and the regions of registered peers.
 *
 * <p>Lifecycle: open (through {@link Transports} or a provider) &rarr; publish
 * {@link #localDescriptor()} to peers over your own control plane &rarr; {@link #addPeer} each
 * peer &rarr; {@link #writeBlocks}/{@link #readBlocks}, {@link #poll(String)} and {@link #cancel}
 * &rarr; {@link #removePeer} &rarr; {@link #close()}.
 *
 * <p>Contract, shared by every backend and checked by the conformance kit:
 * <ul>
 *   <li><b>Exactly once.</b> Every id returned by a submit reaches exactly one terminal report,
 *       {@code done} or {@code failed}, from {@link #poll(String)} of its own peer or from
 *       {@link #pollAll()}, unless {@link #cancel} released it or {@link #close()} ended it. Ids
 *       are unique for the life of the transport and increase.</li>
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
 * <p><b>Thread safety:</b> thread-safe. Many peer sessions share one transport: submits, polls
 * and cancels may run concurrently from any threads, for the same or different peers.
 * {@link #close()} may race with any call; calls that lose the race throw
 * {@link IllegalStateException}.
 */
public interface DataTransport extends AutoCloseable {

    /** Returned by {@link #writeBlocks} and {@link #readBlocks} when the peer is not registered. */
    long NOT_SUBMITTED = -1L;

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
     * the region if the backend allocated it. Every id not yet reported ends here. Idempotent;
     * every other method throws {@link IllegalStateException} afterwards.
     */
    @Override
    void close();
}
