package io.blockxfer.cli.internal;

import java.util.concurrent.locks.LockSupport;

/**
 * The submit schedule of a paced benchmark ({@code bench --rate N}): submit {@code k} is due
 * {@code k / N} seconds after the start. A caller that falls behind (a slow transfer, a descheduled
 * thread) may submit at most {@value #CATCH_UP} late transfers back to back; older missed
 * submissions are dropped, not made up, so a stall is never followed by a burst.
 *
 * <p><b>Thread safety:</b> not thread-safe; confined to the measuring thread.
 */
public final class Pacer {

    /** How many late submissions may follow one another without a pause. */
    public static final int CATCH_UP = 4;

    private final long periodNanos;
    private long due;

    /**
     * A schedule of {@code perSecond} submissions per second.
     *
     * @throws IllegalArgumentException unless {@code perSecond} is positive and at most 10^9
     */
    Pacer(double perSecond) {
        if (!(perSecond > 0) || perSecond > 1e9) {
            throw new IllegalArgumentException("rate must be more than 0 and at most 10^9 per second, not "
                    + perSecond);
        }
        this.periodNanos = Math.max(1, Math.round(1e9 / perSecond));
    }

    /** The time between two submissions. */
    long periodNanos() {
        return periodNanos;
    }

    /** Starts the schedule: the first submission is due at {@code now}. */
    void start(long now) {
        due = now;
    }

    /** When the next submission is due, in {@link System#nanoTime()}. */
    long due() {
        return due;
    }

    /** Whether a submission is due at {@code now}. */
    boolean isDue(long now) {
        return now - due >= 0;
    }

    /**
     * A submission was made at {@code now}: the next one is due one period after this one was, but
     * no earlier than {@code CATCH_UP - 2} periods before {@code now}, so that at most
     * {@value #CATCH_UP} submissions (this one included) are ever due at once.
     */
    void submitted(long now) {
        due = Math.max(due + periodNanos, now - (CATCH_UP - 2) * periodNanos);
    }

    /**
     * Waits until {@code deadline}: a spinning caller spins, any other parks (a park may return
     * early, so it parks again).
     */
    static void waitUntil(long deadline, boolean spin) {
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            if (spin) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(left);
            }
        }
    }
}
