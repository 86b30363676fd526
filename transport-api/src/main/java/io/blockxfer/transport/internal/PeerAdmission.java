package io.blockxfer.transport.internal;

import io.blockxfer.transport.IncompatiblePeerException;
import io.blockxfer.transport.PeerDescriptor;
import java.util.Objects;

/**
 * Decides whether a peer descriptor may be registered at all, before anything is built for it:
 * a non-empty peer id, the same backend, block length and config fingerprint as this transport.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public final class PeerAdmission {

    private final String backend;
    private final long blockLength;
    private final String fingerprint;

    public PeerAdmission(String backend, long blockLength, String fingerprint) {
        this.backend = backend;
        this.blockLength = blockLength;
        this.fingerprint = fingerprint;
    }

    /**
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the peer id is empty
     * @throws IncompatiblePeerException if the peer cannot be talked to
     */
    public void check(String peerId, PeerDescriptor peer) {
        Objects.requireNonNull(peerId, "peerId");
        Objects.requireNonNull(peer, "peer");
        if (peerId.isEmpty()) {
            throw new IllegalArgumentException("peerId must not be empty");
        }
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
}
