package io.blockxfer.transport.spi;

import org.jspecify.annotations.Nullable;

/**
 * Where a {@link TransferEngine} hands the notification messages that reach its process, handed to
 * the engine once by {@link TransferEngine#bindNotificationSink}. The managed transport decodes each
 * message, checks it (its format, its addressee and, with a key ring, its MAC and freshness), names
 * its sender, and queues it for the transport's polls, waits and subscriber.
 *
 * <p>Call it once per message that arrived, in any order, from any thread (a native callback of
 * the engine included: it never blocks, never calls the engine, and never throws), after the bytes
 * of the transfer the message follows are visible in the region.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
@FunctionalInterface
public interface NotificationSink {

    /**
     * One message arrived.
     *
     * @param message the bytes exactly as the sender's engine sent them ({@link OutboundNotification#frame()},
     *     or its {@link OutboundNotification#payload()} from a peer that only understands raw
     *     messages); owned by the sink from now on
     * @param peerId the peer id the engine connected the sender under, or null when the engine
     *     does not know the sender as a peer or cannot tell who sent it
     * @param backendName the backend's own name for the sender (a NIXL agent name), or null when
     *     it has none
     *     <p>Both are used only for messages that are not in blockxfer's format (whose frame names
     *     its sender itself).
     */
    void received(byte[] message, @Nullable String peerId, @Nullable String backendName);
}
