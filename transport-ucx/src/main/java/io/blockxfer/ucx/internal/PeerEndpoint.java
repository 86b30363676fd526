package io.blockxfer.ucx.internal;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointErrorHandler;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpRemoteKey;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;

/**
 * One UCP endpoint to a peer's worker, in peer error mode, with the peer's remote key unpacked on
 * it (remote keys belong to an endpoint), the count of requests UCX holds on it, and its close.
 *
 * <p><b>Closing waits for the endpoint's requests.</b> UCX 1.18 frees an endpoint at once when it
 * is force-closed, but a flush request that was waiting on it (for the peer's acknowledgements of
 * software-emulated puts, or behind a full receive queue of the peer) can stay scheduled on the
 * worker and run later against the freed endpoint: SIGSEGV in {@code ucp_ep_flush_progress}. So a
 * close is issued only once no request of this endpoint is outstanding. A healthy peer ends them
 * promptly; when the peer fails, UCX fails the endpoint itself (the error handler fires) and ends
 * them with an error on the following progress calls, while the endpoint is still allocated. Waiting
 * for them on a healthy peer also means the peer has sent every reply it owed this endpoint, so
 * its own endpoint holds no queued reply when it later learns this one is gone (UCX 1.18 fails
 * such replies through a path that can crash the peer, see {@link LoopShutdown}). After
 * a force-close the remote key goes only once the close completed (a request UCX still queued
 * reads it when it is finally sent); before a graceful close, nothing is in flight, so it goes
 * first.
 *
 * <p><b>Through a listener.</b> An endpoint connected to a peer's listener ({@link #connect})
 * is wired up by UCX over the progress that follows, and a remote key unpacked before that is bound
 * to the endpoint's configuration of the moment (UCX 1.18 then emulates RMA with messages even
 * after the endpoint connected). So such an endpoint first flushes (a flush ends once the
 * endpoint is connected), and its key is unpacked only then ({@link #wiredUp},
 * {@link #unpack}); the flush counts as outstanding, so a close waits for it.
 *
 * <p><b>Thread safety:</b> owner of the loop's worker only.
 */
final class PeerEndpoint {

    private static final System.Logger LOG = System.getLogger(PeerEndpoint.class.getName());

    /** How long a close waits for the endpoint's requests before it is issued anyway. */
    static final long CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);

    final UcpEndpoint endpoint;
    /** Requests of transfers issued on this endpoint that UCX has not ended. */
    int outstanding;
    private @Nullable UcpRemoteKey rkey;
    /** The flush that ends once an endpoint connected through a listener is wired up; null after. */
    private @Nullable UcpRequest wireup;
    private int wireupStatus = UcsStatus.OK;
    private @Nullable UcpRequest closeRequest;
    private boolean closeAsked;
    private long closeAskedNanos;
    private boolean force;
    private boolean closeIssued;

    private PeerEndpoint(UcpEndpoint endpoint, @Nullable UcpRemoteKey rkey) {
        this.endpoint = endpoint;
        this.rkey = rkey;
    }

    /**
     * Creates an endpoint to the listener at {@code listener} and starts its wireup (a flush); the
     * remote key is unpacked by {@link #unpack} once {@link #wiredUp}. On failure closes what it
     * built and throws.
     */
    static PeerEndpoint connect(UcpWorker worker, String name, InetSocketAddress listener,
            UcpEndpointErrorHandler onError) {
        UcpEndpoint ep = worker.newEndpoint(new UcpEndpointParams()
                .setSocketAddress(listener)
                .setPeerErrorHandlingMode()
                .setName(name)
                .setErrorHandler(onError));
        PeerEndpoint pe = new PeerEndpoint(ep, null);
        try {
            pe.wireup = ep.flushNonBlocking(null);
            pe.outstanding++;
        } catch (RuntimeException e) {
            try {
                ep.closeNonBlockingForce();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        return pe;
    }

    /**
     * Whether the endpoint is wired up, or its wireup failed ({@link #wireupStatus}); counts the
     * wireup flush off once it ended. True at once for an endpoint built by worker address.
     */
    boolean wiredUp() {
        UcpRequest w = wireup;
        if (w == null) {
            return true;
        }
        if (!w.isCompleted()) {
            return false;
        }
        wireupStatus = w.getStatus();
        wireup = null;
        outstanding--;
        return true;
    }

    /** How the wireup ended: {@link UcsStatus#OK}, or UCX's error. */
    int wireupStatus() {
        return wireupStatus;
    }

    /** Unpacks the peer's remote key on the wired-up endpoint. */
    void unpack(UcxMetadata metadata) {
        if (rkey == null) {
            rkey = endpoint.unpackRemoteKey(direct(metadata.rkey()));
        }
    }

    /**
     * Creates the endpoint and unpacks the remote key; on failure closes what it built and throws.
     */
    static PeerEndpoint open(UcpWorker worker, String name, UcxMetadata metadata, UcpEndpointErrorHandler onError) {
        UcpEndpoint ep = worker.newEndpoint(new UcpEndpointParams()
                .setUcpAddress(direct(metadata.workerAddress()))
                .setPeerErrorHandlingMode()
                .setName(name)
                .setErrorHandler(onError));
        try {
            return new PeerEndpoint(ep, ep.unpackRemoteKey(direct(metadata.rkey())));
        } catch (RuntimeException e) {
            try {
                ep.closeNonBlockingForce();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private static ByteBuffer direct(byte[] bytes) {
        return ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
    }

    @Nullable UcpRemoteKey rkey() {
        return rkey;
    }

    /**
     * Where the peer's memory at {@code remoteAddress} is mapped in this process through this
     * endpoint's remote key ({@code ucp_rkey_ptr}), or 0; valid while the remote key lives.
     */
    long mappedAddress(long remoteAddress) {
        UcpRemoteKey k = rkey;
        if (k == null) {
            return 0;
        }
        Long handle = k.getNativeId();
        return handle == null ? 0 : UcxLibrary.rkeyPtr(handle, remoteAddress);
    }

    /**
     * Asks for a close, gracefully (a flushing close) or by force (which cancels what UCX still
     * queues); issued at once when no request is outstanding, else by {@link #closeWhenIdle}.
     */
    void startClose(boolean byForce, long now) {
        if (closeAsked) {
            return;
        }
        closeAsked = true;
        closeAskedNanos = now;
        force = byForce;
        closeWhenIdle(now);
    }

    /**
     * Issues the asked-for close once no request of this endpoint is outstanding, or once it waited
     * {@link #CLOSE_WAIT_NANOS} for them: a peer that stopped answering (frozen, or closed while
     * its process lives on, which UCX cannot tell on shared memory) never ends them. By then they
     * wait for the peer, a state the force-close handles; the dangerous one lasts a progress call.
     */
    void closeWhenIdle(long now) {
        wiredUp(); // counts a wireup flush that ended off
        if (!closeAsked || closeIssued || (outstanding > 0 && now - closeAskedNanos < CLOSE_WAIT_NANOS)) {
            return;
        }
        closeIssued = true;
        if (!force) {
            destroyRkey(); // nothing of this endpoint is in flight
        }
        try {
            closeRequest = force ? endpoint.closeNonBlockingForce() : endpoint.closeNonBlockingFlush();
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, () -> "closing " + endpoint + " failed: " + UcsStatus.describe(e));
            closeRequest = null;
        }
    }

    /** Whether the close is asked for but waits for outstanding requests. */
    boolean closeWaits() {
        return closeAsked && !closeIssued;
    }

    /** Whether the close was issued and ended. */
    boolean isClosed() {
        return closeIssued && (closeRequest == null || closeRequest.isCompleted());
    }

    /** Frees the remote key (idempotent); only after the endpoint closed, or before it had requests. */
    void destroyRkey() {
        if (rkey != null) {
            try {
                rkey.close();
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, () -> "destroying a remote key failed: " + e);
            }
            rkey = null;
        }
    }
}
