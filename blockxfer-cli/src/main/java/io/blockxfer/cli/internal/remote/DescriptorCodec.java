package io.blockxfer.cli.internal.remote;

import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import java.util.Objects;
import java.util.Optional;

/**
 * How a target's {@link PeerDescriptor} travels over the bench control channel: as
 * {@link PeerDescriptor#encode()} makes it, and read back either as it is ({@link #PLAIN}, without
 * a deployment key) or authenticated first ({@link #signed}): the MAC over the raw bytes is
 * checked against the key ring, in constant time, before any other field is parsed, as DESIGN.md's
 * trust model asks. With a key, a server's targets sign their descriptors themselves (their
 * transports hold the key ring); the codec never signs on their behalf.
 *
 * <p><b>Thread safety:</b> implementations must be thread-safe.
 */
public interface DescriptorCodec {

    /** Descriptors as {@link PeerDescriptor#encode()} makes them, unauthenticated. */
    DescriptorCodec PLAIN = new DescriptorCodec() {
        @Override
        public byte[] encode(PeerDescriptor descriptor) {
            return descriptor.encode();
        }

        @Override
        public PeerDescriptor decode(byte[] blob) {
            return PeerDescriptor.decode(blob);
        }

        @Override
        public String toString() {
            return "plain descriptors (no key)";
        }
    };

    /** Descriptors that must be signed with a key of {@code ring}. */
    static DescriptorCodec signed(DeploymentKeyRing ring) {
        Objects.requireNonNull(ring, "ring");
        return new DescriptorCodec() {
            @Override
            public byte[] encode(PeerDescriptor descriptor) {
                return descriptor.encode();
            }

            @Override
            public PeerDescriptor decode(byte[] blob) {
                return PeerDescriptor.decode(blob, ring);
            }

            @Override
            public String toString() {
                return "descriptors signed with key '" + ring.signingKeyId() + "'";
            }
        };
    }

    /** {@link #signed} with {@code ring} when present, else {@link #PLAIN}. */
    static DescriptorCodec of(Optional<DeploymentKeyRing> ring) {
        return ring.map(DescriptorCodec::signed).orElse(PLAIN);
    }

    /** The bytes to send for {@code descriptor}. */
    byte[] encode(PeerDescriptor descriptor);

    /**
     * The descriptor in {@code blob}.
     *
     * @throws io.blockxfer.transport.MalformedPeerDescriptorException if the blob is not a valid
     *     descriptor
     * @throws io.blockxfer.transport.UnauthenticatedPeerException with a key, if the blob is
     *     unsigned, signed with a key not in the ring, or changed after signing
     */
    PeerDescriptor decode(byte[] blob);
}
