package io.blockxfer.holds;

/**
 * The monotonic clock a {@link Holds} measures TTLs, renewals and transfer ends with, in
 * nanoseconds from an arbitrary origin ({@link System#nanoTime()} by default). Only differences of
 * one process's readings are used: an owner and a holder never compare their clocks. Tests inject
 * a {@link ManualHoldClock}.
 *
 * <p><b>Thread safety:</b> implementations must be thread-safe and never go backwards.
 */
@FunctionalInterface
public interface HoldClock {

    /** The current reading, in nanoseconds. */
    long nanoTime();

    /** {@link System#nanoTime()}. */
    static HoldClock system() {
        return System::nanoTime;
    }
}
