package io.blockxfer.cli.internal;

import java.util.concurrent.locks.LockSupport;

/**
 * What a benchmark's caller does after each poll, as its {@link PollStyle} says.
 *
 * <p><b>Thread safety:</b> not thread-safe; confined to the measuring thread.
 */
final class Poller {

    private static final long PARK_NANOS = 5_000;

    private final PollStyle style;
    private final long intervalNanos;
    private int emptyPolls;
    private long nextTick;

    Poller(PollStyle style, long intervalNanos) {
        this.style = style;
        this.intervalNanos = intervalNanos;
    }

    PollStyle style() {
        return style;
    }

    /** Starts a run: the first interval begins now. */
    void start() {
        emptyPolls = 0;
        nextTick = System.nanoTime() + intervalNanos;
    }

    /** Waits after a poll that reported {@code reported} transfers. */
    // the yield is the middle step of the backoff poll style the user asked to measure; nothing
    // depends on the scheduler honouring it
    @SuppressWarnings("ThreadPriorityCheck")
    void afterPoll(int reported) {
        switch (style) {
            case SPIN -> {
                if (reported == 0) {
                    Thread.onSpinWait();
                }
            }
            case BACKOFF -> {
                if (reported > 0) {
                    emptyPolls = 0;
                } else if (++emptyPolls < 64) {
                    Thread.onSpinWait();
                } else if (emptyPolls < 128) {
                    Thread.yield();
                } else {
                    LockSupport.parkNanos(PARK_NANOS);
                }
            }
            case WAIT, JOIN, CALLBACK -> {
                // the transport blocked the caller until something ended
            }
            case INTERVAL -> {
                long now = System.nanoTime();
                if (nextTick - now > 0) {
                    LockSupport.parkNanos(nextTick - now);
                    nextTick += intervalNanos;
                } else {
                    nextTick = now + intervalNanos; // late: the next poll is one interval from now
                }
            }
        }
    }
}
