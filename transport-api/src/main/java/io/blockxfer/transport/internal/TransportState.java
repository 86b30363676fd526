package io.blockxfer.transport.internal;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Whether a managed transport is open, closing or closed, and the wait for a close that another
 * thread runs.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class TransportState {

    private static final int OPEN = 0;
    private static final int CLOSING = 1;
    private static final int CLOSED = 2;

    private final String label;
    private final AtomicInteger state = new AtomicInteger(OPEN);
    private final CountDownLatch closed = new CountDownLatch(1);

    /** @param label how the transport names itself in messages */
    public TransportState(String label) {
        this.label = label;
    }

    /** Whether {@link #beginClose()} has not happened yet. */
    public boolean isOpen() {
        return state.get() == OPEN;
    }

    /**
     * Checks that close has not begun.
     *
     * @throws IllegalStateException naming the transport once close has begun
     */
    public void ensureOpen() {
        if (state.get() != OPEN) {
            throw new IllegalStateException("transport closed: " + label);
        }
    }

    /** Moves from open to closing; false if a close had already begun. */
    public boolean beginClose() {
        return state.compareAndSet(OPEN, CLOSING);
    }

    /** Marks the close finished and lets every {@link #awaitClosed()} return. */
    public void finishClose() {
        state.set(CLOSED);
        closed.countDown();
    }

    /** Waits, uninterruptibly, until {@link #finishClose()}; keeps the interrupt status. */
    public void awaitClosed() {
        boolean interrupted = false;
        while (true) {
            try {
                closed.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
