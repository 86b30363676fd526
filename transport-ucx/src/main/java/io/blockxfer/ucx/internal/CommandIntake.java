package io.blockxfer.ucx.internal;

import io.blockxfer.transport.internal.queue.MpscRing;
import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The command queue of a {@link ProgressLoop}: any thread submits, the owner of the worker runs
 * what was queued. A submit queues its command and has the {@link WorkerDriver} wake whoever must
 * run it. A full queue slows the submitter (bounded, {@value #QUEUE_FULL_WAIT_MILLIS} ms by
 * default) instead of failing its transfer: it drives a round itself where polls may drive, else
 * wakes the loop's thread, backing off from spinning to parking. Once the loop stops, submits
 * fail; once it ended ({@link #terminate}), what is still queued is rejected, whether it got in
 * before the end or after.
 *
 * <p><b>Thread safety:</b> {@link #execute} and the getters from any thread; {@link #drain} by the
 * owner of the worker, the queue's one consumer while the loop runs; after the loop ended any
 * thread may reject what is queued, one at a time under a lock.
 */
final class CommandIntake {

    /** The loop's parts log under the loop's name. */
    private static final System.Logger LOG = System.getLogger(ProgressLoop.class.getName());
    private static final int DRAIN_BATCH = 1024;
    /** Default size of the command queue. */
    static final int QUEUE_CAPACITY = 1 << 16;
    /** How long a submitter waits for room in a full command queue before its transfer fails. */
    static final long QUEUE_FULL_WAIT_MILLIS = 5_000;

    private final String name;
    private final MpscRing<LoopCommand> commands;
    private final long queueFullWaitNanos;
    private final WorkerDriver driver;
    private final EndSignal ends;
    private final Object rejectLock = new Object();
    private final AtomicLong queueFullWaits = new AtomicLong();
    private volatile boolean terminated;

    /**
     * Commands queued on {@code commands}, whose submitters wait for room at most
     * {@code queueFullWaitMillis}, for the worker that {@code driver} drives; transfers it rejects
     * are told to {@code ends}.
     */
    CommandIntake(String name, MpscRing<LoopCommand> commands, long queueFullWaitMillis, WorkerDriver driver,
            EndSignal ends) {
        this.name = name;
        this.commands = commands;
        this.queueFullWaitNanos = TimeUnit.MILLISECONDS.toNanos(queueFullWaitMillis);
        this.driver = driver;
        this.ends = ends;
    }

    /**
     * Queues a command and wakes whoever drives: transfers are left to an active polling thread,
     * other commands always wake the loop's thread. Waits (bounded) while the queue is full.
     *
     * @throws IllegalStateException if the loop stopped, or the queue stayed full too long
     */
    void execute(LoopCommand command) {
        if (driver.stopping()) {
            throw new IllegalStateException(name + " is stopped");
        }
        if (!commands.offer(command)) {
            offerWhenRoom(command);
        }
        driver.wakeFor(command);
        if (terminated) {
            // nobody drives any more: reject what it left, this command included
            rejectQueued();
        }
    }

    /** Back-pressure: waits until the full queue takes {@code command}, driving it where allowed. */
    // yield is one step of the back-off between spinning and parking, for a queue that the loop's
    // thread empties within microseconds; correctness never depends on how the scheduler takes it
    @SuppressWarnings("ThreadPriorityCheck")
    private void offerWhenRoom(LoopCommand command) {
        queueFullWaits.incrementAndGet();
        long start = System.nanoTime();
        for (int round = 0; !commands.offer(command); round++) {
            if (driver.stopping()) {
                throw new IllegalStateException(name + " is stopped");
            }
            if (System.nanoTime() - start > queueFullWaitNanos) {
                throw new IllegalStateException(name + ": the command queue stayed full for "
                        + TimeUnit.NANOSECONDS.toMillis(queueFullWaitNanos) + " ms (the UCX progress thread is not"
                        + " draining it)");
            }
            if (driver.driveFromPoller() > 0) {
                continue;
            }
            driver.nudge();
            if (round < 64) {
                Thread.onSpinWait();
            } else if (round < 128) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(Math.min(1_000_000L, 10_000L << Math.min(round - 128, 7)));
            }
        }
    }

    /**
     * Runs queued commands on {@code loop}, at most a batch of them; a command that throws is
     * rejected, and the rest still run. Owner only.
     *
     * @return how many commands ran
     */
    int drain(ProgressLoop loop) {
        int n = 0;
        LoopCommand c;
        while (n < DRAIN_BATCH && (c = commands.poll()) != null) {
            n++;
            try {
                c.run(loop);
            } catch (RuntimeException | LinkageError e) {
                // one command's failure (a class that cannot load when descriptors ran out, say)
                // ends that command, not the loop
                try {
                    c.reject(name + ": running " + c.getClass().getSimpleName() + " failed: " + e);
                } catch (RuntimeException | LinkageError ignored) {
                    // nothing more to tell it
                }
                ends.ended();
            }
        }
        return n;
    }

    /** After the loop ended: rejects what is queued; the lock makes callers one consumer at a time. */
    void rejectQueued() {
        boolean rejected = false;
        synchronized (rejectLock) {
            LoopCommand c;
            while ((c = commands.poll()) != null) {
                rejected = true;
                try {
                    c.reject(name + " is closed");
                } catch (RuntimeException e) {
                    LOG.log(Level.DEBUG, () -> name + ": rejecting a command failed: " + e);
                }
            }
        }
        if (rejected) {
            ends.fire();
        }
    }

    /**
     * The loop ended and nobody drives any more: from now on {@link #execute} rejects what it
     * queued itself; what got in before is rejected here.
     */
    void terminate() {
        terminated = true;
        rejectQueued();
    }

    /** Whether the loop ended. */
    boolean terminated() {
        return terminated;
    }

    /** How many submits found the command queue full and had to wait (for tests). */
    long queueFullWaits() {
        return queueFullWaits.get();
    }
}
