package io.blockxfer.holds;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link HoldClock} that moves only when told, for tests: with
 * {@link Holds.Builder#manualTicks()}, a test decides exactly when time passes and when a
 * {@link Holds} looks at it ({@link Holds#tick()}).
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class ManualHoldClock implements HoldClock {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    /** A clock at an arbitrary reading. */
    public ManualHoldClock() {
    }

    @Override
    public long nanoTime() {
        return now.get();
    }

    /**
     * Moves the clock forward by {@code d}.
     *
     * @throws IllegalArgumentException if {@code d} is negative
     */
    public void advance(Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("a clock never goes back: " + d);
        }
        now.addAndGet(d.toNanos());
    }

    @Override
    public String toString() {
        return "ManualHoldClock[" + now.get() + " ns]";
    }
}
