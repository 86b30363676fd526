package io.blockxfer.holds;

import io.blockxfer.transport.DataTransport;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Items waiting for their reader (ended holds, leases granted by notification), each taken once,
 * in the order they came: polled, or waited for without spinning.
 *
 * <p><b>Thread safety:</b> thread-safe; handlers run on the polling thread with no lock held.
 */
final class Mailbox<T> {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition arrived = lock.newCondition();
    private final ArrayDeque<T> items = new ArrayDeque<>();
    private boolean closed;

    void add(T item) {
        lock.lock();
        try {
            items.add(item);
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Wakes waiters; what is queued can still be polled. */
    void close() {
        lock.lock();
        try {
            closed = true;
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
    }

    int size() {
        lock.lock();
        try {
            return items.size();
        } finally {
            lock.unlock();
        }
    }

    /** Hands every queued item to {@code handler}; returns how many. */
    int poll(Consumer<? super T> handler) {
        List<T> taken;
        lock.lock();
        try {
            if (items.isEmpty()) {
                return 0;
            }
            taken = new ArrayList<>(items);
            items.clear();
        } finally {
            lock.unlock();
        }
        taken.forEach(handler);
        return taken.size();
    }

    /**
     * As {@link #poll(Consumer)}, waiting up to {@code timeout} for at least one item; returns at
     * once when closed and empty.
     */
    int poll(Consumer<? super T> handler, long timeout, TimeUnit unit) throws InterruptedException {
        if (timeout < 0 || unit.toNanos(timeout) > DataTransport.MAX_WAIT.toNanos()) {
            throw new IllegalArgumentException("a wait limit between 0 and " + DataTransport.MAX_WAIT + ", not "
                    + timeout + " " + unit);
        }
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        long left = unit.toNanos(timeout);
        lock.lockInterruptibly();
        try {
            while (items.isEmpty() && !closed && left > 0) {
                left = arrived.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
        return poll(handler);
    }
}
