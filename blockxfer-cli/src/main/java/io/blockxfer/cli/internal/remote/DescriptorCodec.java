package io.blockxfer.cli.internal.remote;

import io.blockxfer.transport.PeerDescriptor;

/**
 * How a target's {@link PeerDescriptor} travels over the bench control channel. This is where
 * descriptor authentication plugs in: a deployment key (a key ring, for rotation), loaded from a
 * {@code --key-file} on both hosts, will give a codec that appends a MAC over every byte on
 * {@link #encode} and checks it in constant time on {@link #decode} before anything is parsed, as
 * DESIGN.md's trust model asks. Until the API offers that, the bench sends descriptors as they
 * are ({@link #PLAIN}), so run it on networks you trust.
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

    /** The bytes to send for {@code descriptor}. */
    byte[] encode(PeerDescriptor descriptor);

    /**
     * The descriptor in {@code blob}.
     *
     * @throws io.blockxfer.transport.MalformedPeerDescriptorException if the blob is not a valid
     *     descriptor (or, with a key, not authentic)
     */
    PeerDescriptor decode(byte[] blob);
}
