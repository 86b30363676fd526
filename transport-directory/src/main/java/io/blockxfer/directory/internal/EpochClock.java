package io.blockxfer.directory.internal;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Issues publication epochs: the wall clock's microseconds since 1970, raised where needed so
 * that every epoch issued in this process is above the one before it and above a floor the caller
 * knows of (the epoch of an entry found under its own member id).
 *
 * <p><b>Thread safety:</b> thread-safe; one sequence per process.
 */
public final class EpochClock {

    private static final AtomicLong LAST = new AtomicLong();

    private EpochClock() {
    }

    /** A new epoch, above every earlier one of this process and above {@code floor}. */
    public static long next(long floor) {
        long now = ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
        return LAST.updateAndGet(last -> Math.max(Math.max(now, last + 1), floor + 1));
    }
}
