package io.blockxfer.nixl.internal;

import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * The NIXL engine's notification thread: the fallback that keeps notifications moving when nobody
 * polls. Each round it drains the agent's messages ({@link NotificationDrain}), unless a poll did
 * so more recently than the thread's current pause, and checks the status of transfers that carry a
 * notification and are still in flight (NIXL sends a transfer's message from the initiator's status
 * check, so an initiator that polls rarely would otherwise hold it back). Between rounds it parks
 * with a back-off: {@value #MIN_PARK_MICROS} us after a round that found something, doubling up to
 * {@value #WAITING_PARK_MICROS} us while callers wait (so that a waiting caller, or a subscriber
 * with demand, hears of a message promptly; a stream of messages keeps the pauses short), or while
 * notified transfers are in flight, and up to {@value #IDLE_PARK_MICROS} us otherwise: NIXL's list
 * of undelivered messages is emptied at least that often, so it stays bounded by what arrives in
 * that time. Each look costs a wake-up and two downcalls (a few microseconds of CPU): an idle
 * transport's thread uses well under 1% of a core, a waiting caller's a few percent at most.
 *
 * <p><b>Thread safety:</b> thread-safe; {@link #callersWaiting} and {@link #stop} from any thread.
 */
final class NotificationPump {

    /** The pause after a round that delivered a message or ended a transfer. */
    static final long MIN_PARK_MICROS = 10;
    /** The longest pause while callers wait. */
    static final long WAITING_PARK_MICROS = 250;
    /** The longest pause while transfers with a notification are in flight. */
    static final long OWED_PARK_MICROS = 250;
    /** The longest pause otherwise. */
    static final long IDLE_PARK_MICROS = 5_000;

    private static final System.Logger LOG = System.getLogger(NotificationPump.class.getName());

    private final NotificationDrain drain;
    private final IntSupplier advanceOwed;
    private final BooleanSupplier owed;
    private final Thread thread;
    private volatile boolean waiting;
    private volatile boolean stopped;

    /**
     * Starts the thread.
     *
     * @param advanceOwed checks notified transfers in flight; how many ended
     * @param owed whether notified transfers are in flight
     * @param name the thread's name
     */
    NotificationPump(NotificationDrain drain, IntSupplier advanceOwed, BooleanSupplier owed, String name) {
        this.drain = drain;
        this.advanceOwed = advanceOwed;
        this.owed = owed;
        this.thread = Thread.ofPlatform().name(name).daemon().unstarted(this::run);
        thread.start();
    }

    /** Callers started or stopped waiting: the thread looks faster while they do. */
    void callersWaiting(boolean now) {
        waiting = now;
        if (now) {
            LockSupport.unpark(thread);
        }
    }

    /** Stops the thread and waits (up to {@code timeoutNanos}) for it to end; idempotent. */
    void stop(long timeoutNanos) {
        stopped = true;
        LockSupport.unpark(thread);
        if (thread == Thread.currentThread()) {
            return;
        }
        try {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        long park = TimeUnit.MICROSECONDS.toNanos(MIN_PARK_MICROS);
        while (!stopped) {
            long cap = TimeUnit.MICROSECONDS.toNanos(waiting ? WAITING_PARK_MICROS
                    : owed.getAsBoolean() ? OWED_PARK_MICROS : IDLE_PARK_MICROS);
            park = Math.min(park, cap);
            int found = 0;
            try {
                if (System.nanoTime() - drain.lastDrainNanos() >= park) {
                    found += drain.drain();
                }
                found += advanceOwed.getAsInt();
            } catch (RuntimeException e) {
                if (stopped) {
                    return;
                }
                LOG.log(Level.WARNING, () -> thread.getName() + ": a round failed: " + e);
            }
            park = found > 0 ? TimeUnit.MICROSECONDS.toNanos(MIN_PARK_MICROS) : Math.min(park * 2, cap);
            if (!stopped) {
                LockSupport.parkNanos(this, park);
            }
        }
    }
}
