package io.blockxfer.transport.internal.notify;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
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
    /** Bumped after every change of {@link #peers}: a remembered answer of an older version is not used. */
    private final AtomicLong version = new AtomicLong();
    /** The last answer, for the next frame of the same sender (no boxing, no lookup). */
    private volatile @Nullable Answer last;

    private record Answer(long identity, String peerId, long version) {
    }

    /** A registration of {@code peerId} with {@code identity} was published. */
    public void published(long identity, String peerId) {
        peers.put(identity, peerId);
        version.incrementAndGet();
    }

    /** The registration of {@code peerId} with {@code identity} was retired. */
    public void retired(long identity, String peerId) {
        peers.remove(identity, peerId);
        version.incrementAndGet();
    }

    /** The peer id of {@code identity}, or null when no registration has it. */
    public @Nullable String peerOf(long identity) {
        long v = version.get();
        Answer a = last;
        if (a != null && a.identity == identity && a.version == v) {
            return a.peerId;
        }
        String peerId = peers.get(identity);
        if (peerId != null) {
            last = new Answer(identity, peerId, v); // read before the lookup: a change meanwhile makes it stale
        }
        return peerId;
    }
}
