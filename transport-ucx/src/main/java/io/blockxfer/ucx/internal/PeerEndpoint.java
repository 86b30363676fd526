package io.blockxfer.ucx.internal;

import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointErrorHandler;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpRemoteKey;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;

/**
 * One UCP endpoint to a peer's worker, in peer error mode, with the peer's remote key unpacked on
 * it (remote keys belong to an endpoint), and its close.
 *
 * <p><b>Thread safety:</b> loop thread only.
 */
final class PeerEndpoint {

    private static final System.Logger LOG = System.getLogger(PeerEndpoint.class.getName());

    final UcpEndpoint endpoint;
    private UcpRemoteKey rkey;
    private UcpRequest closeRequest;
    private boolean closeStarted;

    private PeerEndpoint(UcpEndpoint endpoint, UcpRemoteKey rkey) {
        this.endpoint = endpoint;
        this.rkey = rkey;
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

    UcpRemoteKey rkey() {
        return rkey;
    }

    /**
     * Starts closing: gracefully (remote key first, then a flushing close) or by force (which
     * cancels operations in flight; the remote key goes after it completes).
     */
    void startClose(boolean force) {
        if (closeStarted) {
            return;
        }
        closeStarted = true;
        if (!force) {
            destroyRkey();
        }
        try {
            closeRequest = force ? endpoint.closeNonBlockingForce() : endpoint.closeNonBlockingFlush();
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, () -> "closing " + endpoint + " failed: " + UcsStatus.describe(e));
            closeRequest = null;
        }
    }

    /** Whether the close started and ended. */
    boolean isClosed() {
        return closeStarted && (closeRequest == null || closeRequest.isCompleted());
    }

    /** Frees the remote key (idempotent). */
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
