package io.blockxfer.transport.internal;

import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.IncompatiblePeerException;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.UnauthenticatedPeerException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Decides whether a peer descriptor may be registered at all, before anything is built for it:
 * a non-empty peer id; with a key ring, a signature by a key of the ring that matches the
 * descriptor's bytes (an unsigned descriptor only where unsigned peers are accepted); then the
 * same backend, block length and config fingerprint as this transport. Authentication comes
 * first, so an unauthenticated sender learns nothing about this transport's configuration.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public final class PeerAdmission {

    private final String backend;
    private final long blockLength;
    private final String fingerprint;
    private final @Nullable DeploymentKeyRing keyRing;
    private final boolean acceptUnsigned;

    /**
     * Admission for a transport of {@code backend} with blocks of {@code blockLength} bytes and config
     * {@code fingerprint}.
     *
     * @param keyRing the deployment's key ring, or null to accept every descriptor unchecked
     */
    public PeerAdmission(String backend, long blockLength, String fingerprint, @Nullable DeploymentKeyRing keyRing,
            boolean acceptUnsigned) {
        this.backend = backend;
        this.blockLength = blockLength;
        this.fingerprint = fingerprint;
        this.keyRing = keyRing;
        this.acceptUnsigned = acceptUnsigned;
    }

    /**
     * Checks that {@code peer} may be registered as {@code peerId}.
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the peer id is empty
     * @throws UnauthenticatedPeerException if a key ring is set and the descriptor is not
     *     authenticated by it
     * @throws IncompatiblePeerException if the peer cannot be talked to
     */
    public void check(String peerId, PeerDescriptor peer) {
        Objects.requireNonNull(peerId, "peerId");
        Objects.requireNonNull(peer, "peer");
        if (peerId.isEmpty()) {
            throw new IllegalArgumentException("peerId must not be empty");
        }
        authenticate(peerId, peer);
        if (!peer.backend().equals(backend)) {
            throw new IncompatiblePeerException("peer '" + peerId + "' uses backend '" + peer.backend()
                    + "', this transport uses '" + backend + "'");
        }
        if (peer.blockLength() != blockLength) {
            throw new IncompatiblePeerException("peer '" + peerId + "' has block length " + peer.blockLength()
                    + ", this transport " + blockLength);
        }
        if (!peer.fingerprint().equals(fingerprint)) {
            throw new IncompatiblePeerException("peer '" + peerId + "' has config fingerprint '" + peer.fingerprint()
                    + "', this transport '" + fingerprint + "'");
        }
    }

    private void authenticate(String peerId, PeerDescriptor peer) {
        if (keyRing == null || (acceptUnsigned && !peer.isSigned())) {
            return;
        }
        try {
            keyRing.verify(peer);
        } catch (UnauthenticatedPeerException e) {
            String hint = e.reason() == UnauthenticatedPeerException.Reason.UNSIGNED
                    ? " (peers that cannot sign need TransportConfig.Builder.acceptUnsignedPeers(true))" : "";
            throw new UnauthenticatedPeerException(e.reason(), "peer '" + peerId + "' rejected: " + e.getMessage()
                    + hint, e);
        }
    }
}
