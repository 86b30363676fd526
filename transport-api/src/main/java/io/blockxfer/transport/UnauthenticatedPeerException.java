package io.blockxfer.transport;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A peer descriptor that the deployment's {@link DeploymentKeyRing} does not vouch for: it carries
 * no signature, its signature names a key the ring does not hold, or its signature does not match
 * its bytes (they were changed after signing). Thrown by
 * {@link PeerDescriptor#decode(byte[], DeploymentKeyRing)}, {@link DeploymentKeyRing#verify} and by
 * {@link DataTransport#addPeer}/{@link DataTransport#addPeerAsync} of a transport with a key ring,
 * before anything is built for the peer: nothing was registered and the transport is unchanged.
 *
 * <p><b>Thread safety:</b> immutable after construction.
 */
public class UnauthenticatedPeerException extends TransportException {
    private static final long serialVersionUID = 1L;

    /** Why a descriptor was not authenticated. <b>Thread safety:</b> an enum; immutable. */
    public enum Reason {
        /** The descriptor carries no signature (and unsigned peers were not accepted). */
        UNSIGNED,
        /** The descriptor is signed with a key id that is not in the key ring. */
        UNKNOWN_KEY,
        /**
         * The signature does not match the descriptor's bytes: they were changed after signing, or
         * signed with another key under the same key id.
         */
        CHANGED_AFTER_SIGNING
    }

    /** The reason, as a field so that the exception stays serializable. */
    private final Reason reason;

    /** An exception for {@code reason} with a message that names the peer and the key. */
    public UnauthenticatedPeerException(Reason reason, String message) {
        super(message);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /** An exception for {@code reason} with a message and its cause. */
    public UnauthenticatedPeerException(Reason reason, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /** Which of the three checks failed. */
    public Reason reason() {
        return reason;
    }
}
