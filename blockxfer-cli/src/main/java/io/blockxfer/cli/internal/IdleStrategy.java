package io.blockxfer.cli.internal;

import java.util.concurrent.locks.LockSupport;

/**
 * What a benchmark's poller does after a poll that reported nothing.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public enum IdleStrategy {
    /** Poll again at once: the lowest latency, but a core busy polling (which a copy thread may need). */
    SPIN {
        @Override
        void idle(int emptyPolls) {
            Thread.onSpinWait();
        }
    },
    /**
     * Spin for a few polls, then yield, then park for a few microseconds: frees the core for the
     * threads that move the bytes, at a cost of some microseconds of latency.
     */
    BACKOFF {
        @Override
        void idle(int emptyPolls) {
            if (emptyPolls < 64) {
                Thread.onSpinWait();
            } else if (emptyPolls < 128) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(PARK_NANOS);
            }
        }
    };

    private static final long PARK_NANOS = 5_000;

    /** Waits after the {@code emptyPolls}-th empty poll in a row. */
    abstract void idle(int emptyPolls);
}
