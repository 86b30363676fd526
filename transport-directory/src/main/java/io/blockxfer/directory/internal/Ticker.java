package io.blockxfer.directory.internal;

/**
 * The clock a membership's timers run on: {@link #SYSTEM} in production, a manual one in tests,
 * which wakes the loops waiting on it when it moves.
 *
 * <p><b>Thread safety:</b> implementations are thread-safe.
 */
public interface Ticker {

    /** {@link System#nanoTime()}. */
    Ticker SYSTEM = System::nanoTime;

    /** The current time in nanoseconds, on an arbitrary origin. */
    long nanos();

    /** Asks to have {@code wakeUp} run whenever the time moves other than by itself; nothing by default. */
    default void onAdvance(Runnable wakeUp) {
    }
}
