package io.blockxfer.nixl.internal;

import io.blockxfer.transport.MalformedPeerDescriptorException;
import io.blockxfer.transport.PeerRegistrationException;
import java.lang.System.Logger.Level;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The remote NIXL agents loaded into one local agent ({@code load_remote_md}), shared by the peer
 * ids registered with them, and kept loaded for a while after the last one is removed.
 *
 * <p><b>Why keep them.</b> NIXL 1.0 to 1.5.1 close a remote agent's UCX endpoint on
 * {@code invalidate_remote_md} with {@code ucp_ep_close_nbx} and no flags, and UCX (through 1.23)
 * does not destroy an endpoint whose remote side connected back ({@code UCP_EP_FLAG_REMOTE_CONNECTED},
 * which every endpoint created from a worker address is once wireup completes) until its worker is
 * destroyed: "to enable remote endpoints keep sending; TODO negotiate disconnect"
 * ({@code ucp_ep_disconnected}). The endpoint's transport connections stay, and so does the
 * target's endpoint for it (the target's NIXL never knew it; UCX made it during wireup); over TCP
 * that is an established socket on each side per invalidation, for as long as both processes live.
 * NIXL only force-closes an endpoint that UCX already reported failed (the peer died or went away),
 * and the C API offers no other way to close one. So a connection to a live peer is never
 * invalidated only because its last peer id was removed: it is kept <em>idle</em>, and adding a
 * peer with the same metadata again reuses it instead of making another. At most
 * {@code idleLimit} idle connections are kept; past that the one idle longest is invalidated. A
 * connection whose peer failed (any transfer error, its transport in this JVM closed) is
 * invalidated at once: UCX has failed its endpoint, so NIXL force-closes it and nothing stays.
 * Connections cut while their peer lives (evicted idle ones, an abort at a deadline or at a
 * removal with transfers in flight, an old incarnation superseded while it still runs) still
 * leave their endpoint in UCX until the local agent is destroyed.
 *
 * <p><b>Thread safety:</b> thread-safe; one lock guards the table, and NIXL is called under it
 * (loads and invalidations are rare and short).
 */
final class RemoteAgents {

    private static final System.Logger LOG = System.getLogger(RemoteAgents.class.getName());

    /** One remote NIXL agent as loaded into ours. */
    static final class RemoteAgent {
        final String name;
        final byte[] blob;
        final LocalAgents.@Nullable Fence fence;
        int refs;
        boolean invalidated;
        volatile @Nullable String deadCause;

        RemoteAgent(String name, byte[] blob, LocalAgents.@Nullable Fence fence) {
            this.name = name;
            this.blob = blob;
            this.fence = fence;
        }

        @Override
        public String toString() {
            return "NIXL agent '" + name + "'";
        }
    }

    private final NixlAgent agent;
    private final String owner;
    private final int idleLimit;
    private final Object lock = new Object();
    private final Map<String, RemoteAgent> loaded = new HashMap<>();
    /** Loaded agents that no peer id uses, longest idle first. */
    private final LinkedHashMap<String, RemoteAgent> idle = new LinkedHashMap<>();
    private boolean closed;
    private long reused;
    private long idleInvalidations;

    /**
     * @param agent the local agent they are loaded into
     * @param owner how the owning engine names itself in log lines
     * @param idleLimit how many connections without a peer id to keep (0: invalidate at once)
     */
    RemoteAgents(NixlAgent agent, String owner, int idleLimit) {
        this.agent = agent;
        this.owner = owner;
        this.idleLimit = idleLimit;
    }

    /**
     * The remote agent of {@code md} with one more reference: the loaded one if it has the same
     * metadata and is healthy (an idle one becomes busy again), else freshly loaded.
     *
     * @throws IllegalStateException if closed
     * @throws PeerRegistrationException if NIXL refuses well-formed metadata (naming a native
     *     resource cause when there is one)
     * @throws MalformedPeerDescriptorException if NIXL loads it under another name
     */
    RemoteAgent acquire(String peerId, NixlMetadata md, LocalAgents.@Nullable Fence targetFence) {
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException(owner + " is closed");
            }
            RemoteAgent current = loaded.get(md.agentName());
            if (current != null && healthy(current) && Arrays.equals(current.blob, md.nixlBlob())) {
                if (current.refs == 0) {
                    idle.remove(current.name);
                    reused++;
                }
                current.refs++;
                return current;
            }
            if (current != null) {
                // a new incarnation under the same name, or the old one failed: NIXL needs it invalidated first
                invalidateLocked(current, current.deadCause != null ? current.deadCause
                        : "superseded by new metadata for the same agent name (peer '" + peerId + "')");
                forgetLocked(current);
            }
            String name;
            try {
                name = agent.loadRemote(md.nixlBlob());
            } catch (NixlException e) {
                // The blob passed every structural check, so a refusal is NIXL or UCX failing to connect:
                // name a native resource cause when there is one; never call exhaustion "malformed".
                Optional<String> exhausted = NativeResources.exhaustion();
                if (exhausted.isPresent()) {
                    throw new PeerRegistrationException("NIXL could not load the metadata of peer '" + peerId
                            + "' (agent '" + md.agentName() + "'): " + exhausted.get() + "; " + e.getMessage(), e);
                }
                throw new PeerRegistrationException("NIXL could not connect to peer '" + peerId + "' (agent '"
                        + md.agentName() + "') from metadata that is well-formed: " + e.getMessage()
                        + " (its transports may be unreachable from here, or a native resource ran out)", e);
            }
            RemoteAgent remote = new RemoteAgent(name, md.nixlBlob(), targetFence);
            if (!name.equals(md.agentName())) {
                invalidateLocked(remote, "loaded under an unexpected name");
                throw new MalformedPeerDescriptorException("NIXL loaded the metadata of peer '" + peerId
                        + "' as agent '" + name + "', but it names '" + md.agentName() + "'");
            }
            remote.refs = 1;
            loaded.put(name, remote);
            return remote;
        }
    }

    private static boolean healthy(RemoteAgent r) {
        return r.deadCause == null && !r.invalidated && (r.fence == null || !r.fence.isClosed());
    }

    /** Drops one reference: the last one leaves a healthy connection idle, and invalidates any other. */
    void release(RemoteAgent remote) {
        synchronized (lock) {
            if (--remote.refs > 0 || loaded.get(remote.name) != remote) {
                return;
            }
            if (closed || !healthy(remote) || idleLimit == 0) {
                invalidateLocked(remote, null);
                forgetLocked(remote);
                return;
            }
            idle.put(remote.name, remote);
            if (idle.size() > idleLimit) {
                Iterator<RemoteAgent> eldest = idle.values().iterator();
                RemoteAgent evicted = eldest.next();
                eldest.remove();
                idleInvalidations++;
                invalidateLocked(evicted, null);
                loaded.remove(evicted.name, evicted);
            }
        }
    }

    /** Marks a remote agent failed after a native error on one of its transfers, and invalidates it. */
    void markDead(RemoteAgent remote, String cause) {
        if (remote.deadCause != null) {
            return;
        }
        synchronized (lock) {
            if (remote.deadCause == null) {
                LOG.log(Level.WARNING, "{0}: NIXL agent ''{1}'' is considered dead ({2}); its transfers in flight"
                        + " fail and new ones are refused until its peer is added again", owner, remote.name, cause);
                invalidateLocked(remote, cause);
            }
        }
    }

    /** Cuts the connection if {@code remote} has no other user than the peer being aborted. */
    void abort(RemoteAgent remote, String cause) {
        synchronized (lock) {
            // only the sole user may cut the connection; another peer id on the same agent stays up
            if (remote.refs == 1) {
                invalidateLocked(remote, cause);
            }
        }
    }

    /** Invalidates every loaded agent, idle or not (the local agent is about to be destroyed); idempotent. */
    void closeAll(String cause) {
        synchronized (lock) {
            closed = true;
            for (RemoteAgent r : loaded.values()) {
                invalidateLocked(r, cause);
            }
            loaded.clear();
            idle.clear();
        }
    }

    /** Loaded remote agents without a peer id. */
    int idleCount() {
        synchronized (lock) {
            return idle.size();
        }
    }

    /** How often an idle connection was taken up again by {@link #acquire}. */
    long reuseCount() {
        synchronized (lock) {
            return reused;
        }
    }

    /** How many idle connections were invalidated because more than the limit were idle. */
    long idleInvalidationCount() {
        synchronized (lock) {
            return idleInvalidations;
        }
    }

    private void forgetLocked(RemoteAgent remote) {
        loaded.remove(remote.name, remote);
        idle.remove(remote.name, remote);
    }

    private void invalidateLocked(RemoteAgent remote, @Nullable String deadCause) {
        if (deadCause != null && remote.deadCause == null) {
            remote.deadCause = deadCause;
        }
        if (!remote.invalidated && !agent.isClosed()) {
            remote.invalidated = true;
            int status = agent.invalidateRemote(remote.name);
            if (status != NixlStatus.SUCCESS && status != NixlStatus.ERROR_NOT_FOUND) {
                LOG.log(Level.DEBUG, () -> owner + ": " + NixlStatus.describe("nixl_capi_invalidate_remote_md('"
                        + remote.name + "')", status));
            }
        }
    }
}
