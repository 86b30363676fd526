package io.blockxfer.transport.internal;

import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.internal.notify.NotificationFrames;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One published peer registration: the engine's peer handle, the descriptor it was built from,
 * and a count of its transfers not yet released. The engine's {@code disconnect} runs exactly once,
 * when the registration is retired and its last transfer is released, so no native peer state is
 * freed under a transfer in flight. It also carries what notifications to this registration need:
 * the peer's identity and this registration's notification stream with its sequence.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class Registration {

    private static final int RETIRED = 1 << 30;
    private static final SecureRandom STREAMS = new SecureRandom();

    private final Object peer;
    private final PeerDescriptor descriptor;
    private final long identity;
    private final long stream = STREAMS.nextLong();
    private final AtomicLong notifications = new AtomicLong();
    private final AtomicInteger state = new AtomicInteger();

    public Registration(Object peer, PeerDescriptor descriptor) {
        this.peer = peer;
        this.descriptor = descriptor;
        this.identity = NotificationFrames.identityOf(descriptor);
    }

    public Object peer() {
        return peer;
    }

    public PeerDescriptor descriptor() {
        return descriptor;
    }

    public int numBlocks() {
        return descriptor.numBlocks();
    }

    /** The peer's identity ({@link NotificationFrames#identityOf} of its descriptor). */
    public long identity() {
        return identity;
    }

    /** The random id of this registration's notification stream. */
    public long notificationStream() {
        return stream;
    }

    /** The next sequence number of this registration's notification stream, from 1. */
    public long nextNotification() {
        return notifications.incrementAndGet();
    }

    /** Counts a transfer started on this registration. */
    public void transferStarted() {
        state.incrementAndGet();
    }

    /** Counts a transfer released; true when the caller must now disconnect the peer. */
    public boolean transferReleased() {
        return state.decrementAndGet() == RETIRED;
    }

    /** Retires the registration; true when the caller must now disconnect the peer. */
    public boolean retire() {
        int s;
        do {
            s = state.get();
            if (s >= RETIRED) {
                return false;
            }
        } while (!state.compareAndSet(s, s + RETIRED));
        return s == 0;
    }

    public boolean isRetired() {
        return state.get() >= RETIRED;
    }
}
