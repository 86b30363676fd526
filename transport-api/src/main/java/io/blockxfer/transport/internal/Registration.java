package io.blockxfer.transport.internal;

import io.blockxfer.transport.PeerDescriptor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One published peer registration: the engine's peer handle, the descriptor it was built from,
 * and a count of its transfers not yet released. The engine's {@code disconnect} runs exactly once,
 * when the registration is retired and its last transfer is released, so no native peer state is
 * freed under a transfer in flight.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class Registration {

    private static final int RETIRED = 1 << 30;

    private final Object peer;
    private final PeerDescriptor descriptor;
    private final AtomicInteger state = new AtomicInteger();

    public Registration(Object peer, PeerDescriptor descriptor) {
        this.peer = peer;
        this.descriptor = descriptor;
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
