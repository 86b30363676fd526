package io.blockxfer.transport.internal;

import io.blockxfer.transport.spi.CompletionSignal;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Parks the threads that wait for completions, and wakes them when the engine signals one (this
 * is the {@link CompletionSignal} the engine fires) or the transport closes. Tells the engine when
 * the first caller starts waiting and the last one stops ({@code TransferEngine.callersWaiting});
 * the transport's completion thread waits here too, but drives the engine itself whenever it
 * wakes, so it is not counted as a caller.
 *
 * <p>No wake-up is lost: a waiter registers ({@link #enter}), reads the {@link #epoch()}, looks
 * for completions, and parks only while the epoch is unchanged; a signal publishes the terminal
 * state first, then moves the epoch, then unparks the registered waiters that announced a park.
 * Every variable involved is volatile or atomic, and Java orders those accesses sequentially, so
 * either the waiter's look sees the new state or the signal sees the waiter. A signal with nobody
 * registered is one volatile read. Parking uses {@link LockSupport}, so a virtual thread unmounts
 * from its carrier; nothing here runs native code.
 *
 * <p><b>Thread safety:</b> thread-safe. {@link #signal()} from any thread; a {@link Waiter} is
 * used by the thread that entered it only.
 */
public final class CompletionWaiters implements CompletionSignal {

    /** One registered thread. Reused per thread (a thread waits once at a time, barring nesting). */
    public static final class Waiter {
        private @Nullable Thread thread;
        private @Nullable Waiter prev;
        private @Nullable Waiter next;
        private boolean inUse;
        private boolean caller;
        /** The thread is about to park, or parked; only such waiters are unparked. */
        private volatile boolean parking;

        private Waiter() {
        }
    }

    private static final ThreadLocal<Waiter> NODES = ThreadLocal.withInitial(Waiter::new);

    private final GuardedEngine engine;
    private final ReentrantLock lock = new ReentrantLock();
    private final AtomicLong epoch = new AtomicLong();
    /** Registered threads: waiting callers and the transport's completion thread. */
    private final AtomicInteger registered = new AtomicInteger();
    /** Registered callers only. */
    private final AtomicInteger callers = new AtomicInteger();
    private volatile @Nullable Runnable firstCallerHook;
    // guarded by lock
    private @Nullable Waiter head;
    private volatile boolean closed;

    public CompletionWaiters(GuardedEngine engine) {
        this.engine = engine;
    }

    /** Runs {@code hook} (quick, non-blocking) whenever the first caller registers. */
    public void onFirstCaller(Runnable hook) {
        this.firstCallerHook = hook;
    }

    /**
     * Registers the calling thread; it must {@link #leave} in a {@code finally}.
     *
     * @param caller a caller's wait (true) or the transport's own completion thread (false)
     */
    public Waiter enter(boolean caller) {
        Waiter w = NODES.get();
        if (w.inUse) {
            w = new Waiter(); // a wait nested inside a future's dependent on the same thread
        }
        w.inUse = true;
        w.caller = caller;
        w.thread = Thread.currentThread();
        boolean firstCaller = false;
        lock.lock();
        try {
            w.prev = null;
            w.next = head;
            if (head != null) {
                head.prev = w;
            }
            head = w;
            registered.incrementAndGet();
            if (caller) {
                firstCaller = callers.getAndIncrement() == 0;
                if (firstCaller) {
                    engine.callersWaiting(true);
                }
            }
        } finally {
            lock.unlock();
        }
        Runnable hook = firstCallerHook;
        if (firstCaller && hook != null) {
            hook.run();
        }
        return w;
    }

    /** Unregisters a waiter of the calling thread. */
    public void leave(Waiter w) {
        lock.lock();
        try {
            if (w.prev != null) {
                w.prev.next = w.next;
            } else {
                head = w.next;
            }
            if (w.next != null) {
                w.next.prev = w.prev;
            }
            w.prev = null;
            w.next = null;
            registered.decrementAndGet();
            if (w.caller && callers.decrementAndGet() == 0) {
                engine.callersWaiting(false);
            }
        } finally {
            lock.unlock();
        }
        w.thread = null;
        w.inUse = false;
    }

    /** The count of signals so far; read it before looking for completions, and park on it. */
    public long epoch() {
        return epoch.get();
    }

    /**
     * Parks the waiter's thread for at most {@code nanos}, unless a signal or a close came since
     * the epoch was {@code seen}. Returns early on a signal, a close, an interrupt or spuriously;
     * the caller looks again and decides.
     */
    public void park(Waiter w, long seen, long nanos) {
        w.parking = true;
        try {
            if (epoch.get() == seen && !closed && nanos > 0) {
                LockSupport.parkNanos(this, nanos);
            }
        } finally {
            w.parking = false;
        }
    }

    /** How many callers are registered (the transport's own thread is not counted). */
    public int callers() {
        return callers.get();
    }

    /** Whether the transport closed. */
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void signal() {
        if (registered.get() == 0) {
            return;
        }
        epoch.incrementAndGet();
        lock.lock();
        try {
            for (Waiter w = head; w != null; w = w.next) {
                if (w.parking) {
                    LockSupport.unpark(w.thread);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** The transport closed: wakes every waiter, now and from now on. */
    public void close() {
        closed = true;
        epoch.incrementAndGet();
        lock.lock();
        try {
            for (Waiter w = head; w != null; w = w.next) {
                LockSupport.unpark(w.thread);
            }
        } finally {
            lock.unlock();
        }
    }
}
