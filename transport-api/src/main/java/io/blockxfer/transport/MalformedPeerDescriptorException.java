package io.blockxfer.transport;

import org.jspecify.annotations.Nullable;

/**
 * A peer descriptor or the backend metadata inside it is malformed, truncated, oversized or of an
 * unknown version. Peer data comes from the network, so this is the only exception
 * {@link PeerDescriptor#decode(byte[])} throws for bad bytes.
 *
 * <p><b>Thread safety:</b> immutable after construction.
 */
public class MalformedPeerDescriptorException extends TransportException {
    private static final long serialVersionUID = 1L;

    /** Names what is wrong with the bytes. */
    public MalformedPeerDescriptorException(String message) {
        super(message);
    }

    /** Names what is wrong with the bytes, with the underlying cause. */
    public MalformedPeerDescriptorException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
