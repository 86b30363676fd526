package io.blockxfer.transport.internal.notify;

import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The peer ids under which a transport registered each sender identity
 * ({@link NotificationFrames#identityOf}), so that a notification names its sender as the receiver
 * knows it. Updated when a registration is published and when it is retired.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class SenderIndex {

    private final ConcurrentHashMap<Long, String> peers = new ConcurrentHashMap<>();

    /** A registration of {@code peerId} with {@code identity} was published. */
    public void published(long identity, String peerId) {
        peers.put(identity, peerId);
    }

    /** The registration of {@code peerId} with {@code identity} was retired. */
    public void retired(long identity, String peerId) {
        peers.remove(identity, peerId);
    }

    /** The peer id of {@code identity}, or null when no registration has it. */
    public @Nullable String peerOf(long identity) {
        return peers.get(identity);
    }
}
