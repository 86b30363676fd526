package io.blockxfer.directory.internal;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One thread that runs tasks one at a time, in the order they were given, and timers when a
 * {@link Ticker} says they are due: the thread a membership keeps its state on. A task that throws
 * is logged and the loop goes on.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class SerialLoop implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(SerialLoop.class.getName());

    private final Ticker ticker;
    private final Thread thread;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    private final PriorityQueue<Timer> timers = new PriorityQueue<>();
    private long timerSequence;
    private boolean closed;

    /** A scheduled task; {@link #cancel()} keeps it from running. */
    public static final class Timer implements Comparable<Timer> {
        private final long due;
        private final long sequence;
        private final Runnable task;
        private volatile boolean cancelled;

        private Timer(long due, long sequence, Runnable task) {
            this.due = due;
            this.sequence = sequence;
            this.task = task;
        }

        /** Keeps the task from running, if it has not started. */
        public void cancel() {
            cancelled = true;
        }

        @Override
        public int compareTo(Timer o) {
            int byDue = Long.compare(due - o.due, 0);
            return byDue != 0 ? byDue : Long.compare(sequence, o.sequence);
        }

        @Override
        public boolean equals(Object o) {
            return o == this;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(sequence);
        }
    }

    /** A loop on a daemon thread named {@code name}, started at once. */
    public SerialLoop(String name, Ticker ticker) {
        this.ticker = ticker;
        this.thread = new Thread(this::run, name);
        this.thread.setDaemon(true);
        ticker.onAdvance(this::wake);
        this.thread.start();
    }

    /** Whether the calling thread is the loop's. */
    public boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    /** The loop's ticker. */
    public Ticker ticker() {
        return ticker;
    }

    /** Runs {@code task} on the loop after the tasks given before it; dropped after close. */
    public void execute(Runnable task) {
        lock.lock();
        try {
            if (!closed) {
                tasks.add(task);
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Runs {@code task} on the loop once the ticker has moved {@code delayNanos} on. */
    public Timer schedule(Runnable task, long delayNanos) {
        lock.lock();
        try {
            Timer t = new Timer(ticker.nanos() + Math.max(0, delayNanos), timerSequence++, task);
            if (!closed) {
                timers.add(t);
                changed.signalAll();
            }
            return t;
        } finally {
            lock.unlock();
        }
    }

    /** Wakes the loop to look at its timers again (the ticker moved). */
    public void wake() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops the loop: tasks and timers not yet started are dropped; a task running is waited for
     * up to {@code wait}, unless close runs on the loop. Idempotent.
     *
     * @return whether the loop's thread has ended
     */
    public boolean close(Duration wait) {
        lock.lock();
        try {
            closed = true;
            tasks.clear();
            timers.clear();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (inLoop()) {
            return false;
        }
        try {
            return thread.join(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !thread.isAlive();
        }
    }

    /** {@link #close(Duration)} waiting up to five seconds. */
    @Override
    public void close() {
        close(Duration.ofSeconds(5));
    }

    private void run() {
        while (true) {
            Runnable next;
            lock.lock();
            try {
                next = null;
                while (next == null) {
                    if (closed) {
                        return;
                    }
                    next = tasks.poll();
                    if (next != null) {
                        break;
                    }
                    Timer first = timers.peek();
                    long now = ticker.nanos();
                    if (first != null && first.due - now <= 0) {
                        timers.poll();
                        if (!first.cancelled) {
                            next = first.task;
                        }
                        continue;
                    }
                    if (first == null) {
                        changed.await();
                    } else {
                        changed.await(first.due - now, TimeUnit.NANOSECONDS);
                    }
                }
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            try {
                next.run();
            } catch (VirtualMachineError e) {
                throw e;
            } catch (RuntimeException | Error e) {
                LOG.log(Level.ERROR, thread.getName() + ": a task failed; going on", e);
            }
        }
    }
}
