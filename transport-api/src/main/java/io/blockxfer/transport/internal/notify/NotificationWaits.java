package io.blockxfer.transport.internal.notify;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.NotificationHandler;
import io.blockxfer.transport.internal.CompletionWaiters;
import io.blockxfer.transport.internal.GuardedEngine;
import io.blockxfer.transport.internal.TransportState;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The polls of received notifications: the plain one lets the calling thread drive the engine,
 * then delivers what is queued; the waiting one does the same, keeps looking for a short spin,
 * then parks with the transport's {@link CompletionWaiters} (counted as a waiting caller, so the
 * engine's own thread drives the backend meanwhile) until a notification arrives, the limit
 * passes, the thread is interrupted or the transport closes, exactly as a wait for completions
 * does.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class NotificationWaits {

    /** The spin of a wait before it parks, as for completions. */
    static final long SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(20);
    private static final long MAX_WAIT_NANOS = DataTransport.MAX_WAIT.toNanos();

    private final NotificationInbox inbox;
    private final GuardedEngine engine;
    private final CompletionWaiters waiters;
    private final TransportState state;
    private final long recheckNanos;
    private final String label;

    /**
     * @param recheckNanos the longest park at a time (a safety net: arrivals wake waiters)
     * @param label how the transport names itself in messages
     */
    public NotificationWaits(NotificationInbox inbox, GuardedEngine engine, CompletionWaiters waiters,
            TransportState state, long recheckNanos, String label) {
        this.inbox = inbox;
        this.engine = engine;
        this.waiters = waiters;
        this.state = state;
        this.recheckNanos = recheckNanos;
        this.label = label;
    }

    /** Delivers what is queued, after letting the calling thread drive the engine. */
    public int poll(NotificationHandler handler) {
        Objects.requireNonNull(handler, "handler");
        state.ensureOpen();
        engine.progress();
        return inbox.drainTo(handler, Integer.MAX_VALUE);
    }

    /** Waits for at least one notification, then delivers what is queued. */
    public int poll(NotificationHandler handler, long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(handler, "handler");
        long nanos = nanos(timeout, unit);
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before waiting for notifications on " + label);
        }
        long deadline = System.nanoTime() + nanos;
        while (true) {
            int n = poll(handler);
            if (n > 0) {
                return n;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || !awaitArrival(left, () -> false)) {
                return 0;
            }
        }
    }

    /**
     * Waits until a notification is queued (true), or {@code nanos} passed or {@code giveUp} says so
     * after a wake-up (false); spins briefly first.
     *
     * @throws InterruptedException if the thread is interrupted; nothing is consumed
     * @throws IllegalStateException if the transport is closed or closes meanwhile
     */
    public boolean awaitArrival(long nanos, java.util.function.BooleanSupplier giveUp) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + nanos;
        long spinEnd = start + Math.min(SPIN_NANOS, nanos);
        while (System.nanoTime() - spinEnd < 0) {
            ensureOpenWhileWaiting();
            engine.progress();
            if (!inbox.isEmpty()) {
                return true;
            }
            Thread.onSpinWait();
        }
        CompletionWaiters.Waiter w = waiters.enter(true);
        try {
            while (true) {
                long seen = waiters.epoch();
                ensureOpenWhileWaiting();
                if (!inbox.isEmpty()) {
                    return true;
                }
                long park = deadline - System.nanoTime();
                if (park <= 0 || giveUp.getAsBoolean()) {
                    return false;
                }
                waiters.park(w, seen, Math.min(park, recheckNanos));
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while waiting for notifications on " + label);
                }
            }
        } finally {
            waiters.leave(w);
        }
    }

    private void ensureOpenWhileWaiting() {
        if (!state.isOpen()) {
            throw new IllegalStateException("transport closed while waiting for notifications: " + label);
        }
    }

    private static long nanos(long timeout, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        if (timeout < 0) {
            throw new IllegalArgumentException("wait limit must not be negative: " + timeout + " " + unit);
        }
        long nanos = unit.toNanos(timeout);
        if (nanos > MAX_WAIT_NANOS) {
            throw new IllegalArgumentException("wait limit " + timeout + " " + unit + " is longer than the most a"
                    + " wait accepts, " + DataTransport.MAX_WAIT.toHours() + " hours (DataTransport.MAX_WAIT)");
        }
        return nanos;
    }
}
