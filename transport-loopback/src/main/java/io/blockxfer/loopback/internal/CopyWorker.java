package io.blockxfer.loopback.internal;

import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.internal.queue.MpscRing;
import io.blockxfer.transport.spi.CompletionSignal;
import io.blockxfer.transport.spi.OutboundNotification;
import io.blockxfer.transport.spi.TransferEngine;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Moves one loopback engine's transfers: takes jobs in submission order, copies contiguous block
 * runs with one {@link MemorySegment#copy} each, and keeps jobs whose target is stalled or whose
 * completion is delayed until they can finish.
 *
 * <p>Whoever holds the <em>consumer role</em> (a flag taken with a compare-and-set, never waited
 * for) does the work: a polling thread through {@link #progressOnCaller}, or the worker thread.
 * When polling threads drive ({@code ProgressMode.POLLING_THREAD}), the worker is only the
 * fallback: it looks at the queue once per fallback interval, leaving the copies to the callers'
 * polls, and parks for good once nothing has come for a while. While the callers' polls take every
 * job before it looks, it looks less often, doubling its interval up to
 * {@value #MAX_FALLBACK_BACKOFF} times the fallback interval (a paced caller that polls its own
 * transfers then does not pay a wake-up of the worker per transfer); the first job it finds left
 * for it, or a submit that wakes it from parking for good, brings the interval back. Otherwise the
 * worker does every copy: it spins briefly after work, then parks.
 *
 * <p>Whoever finishes jobs fires the transport's completion signal afterwards, so callers parked
 * in a wait wake. While callers wait ({@link #callersWaiting}), a waiting caller does not poll, so
 * the fallback worker does queued copies at once: it parks until a submit wakes it instead of
 * looking once per fallback interval.
 *
 * <p>Wake-ups are never lost (Dekker's protocol): before parking for good, the worker announces
 * it, issues a full fence, and parks only if the queue is empty, no job waits and nobody holds
 * the role; a producer offers, issues a full fence and wakes the worker if it announced parking;
 * a polling thread that leaves work behind does the same after giving the role back.
 *
 * <p><b>Thread safety:</b> {@link #offer}, {@link #progressOnCaller}, {@link #wake} and
 * {@link #stop} from any thread; the queue's consumer side and the waiting list only under the
 * consumer role.
 */
final class CopyWorker implements Runnable {

    /** Spins after the last work before parking, when the worker does every copy. */
    static final int DEFAULT_SPINS = 20_000;
    /** How long the worker leaves queued work to polling threads before doing it itself. */
    static final long DEFAULT_FALLBACK_NANOS = 200_000;
    /** While jobs wait (stalled target, delayed completion), how long the worker parks between looks. */
    private static final long WAITING_PARK_NANOS = 200_000;
    /** How many times the fallback interval the worker's looks may stretch to while callers take every job. */
    static final int MAX_FALLBACK_BACKOFF = 8;
    /** How long the fallback worker stays on its interval without work before parking for good. */
    private static final long ARMED_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** The most jobs one poll takes from the queue, so that one caller's poll stays short. */
    private static final int CALLER_BATCH = 256;

    private static final int RUNNING = 0;
    private static final int PARKED = 1;

    private final LoopbackEngine engine;
    private final boolean pollersDrive;
    private final int spins;
    private final long fallbackNanos;
    private final MpscRing<CopyJob> queue = new MpscRing<>(1 << 16);
    private final AtomicBoolean consumerRole = new AtomicBoolean();
    private final AtomicInteger parkState = new AtomicInteger(RUNNING);
    private final Thread thread;
    private volatile boolean running = true;
    private volatile CompletionSignal signal = () -> { };
    /** Callers are parked in a wait: the worker copies at once even when polling threads drive. */
    private volatile boolean callersWaiting;

    // ---- under the consumer role
    private final ArrayList<CopyJob> waiting = new ArrayList<>();
    /** {@code waiting.size()}, readable without the role. */
    private volatile int waitingCount;
    /** How many jobs the last {@link #drain} took from the queue. */
    private int lastTaken;
    /** How many jobs the last {@link #drain} made terminal. */
    private int lastEnded;
    /** How many jobs the worker's own last {@link #drainIfFree} took from the queue (worker thread only). */
    private int workerTaken;
    /** Jobs that polling threads took from the queue (telemetry, tests). */
    private final AtomicLong takenByCallers = new AtomicLong();

    /**
     * @param pollersDrive whether polling threads do the copies (the worker is the fallback)
     * @param spins how many idle rounds the worker spins before parking, when it does the copies
     * @param fallbackNanos how long the fallback worker leaves queued work to polling threads
     * @param signal fired after jobs end
     * @param callersWaiting whether callers wait already
     */
    CopyWorker(LoopbackEngine engine, String name, boolean pollersDrive, int spins, long fallbackNanos,
            CompletionSignal signal, boolean callersWaiting) {
        this.engine = engine;
        this.signal = signal;
        this.callersWaiting = callersWaiting;
        this.pollersDrive = pollersDrive;
        this.spins = spins;
        this.fallbackNanos = fallbackNanos;
        this.thread = Thread.ofPlatform().name(name).daemon().unstarted(this);
        thread.start();
    }

    /**
     * Queues a job, waiting up to {@code maxWaitNanos} while the queue is full (a polling-driven
     * caller first does queued copies itself); false only if it stayed full that long.
     */
    boolean offer(CopyJob job, long maxWaitNanos) {
        boolean queued = queue.offer(job);
        if (!queued && pollersDrive) {
            progressOnCaller();
            queued = queue.offer(job);
        }
        if (!queued) {
            wake();
            queued = queue.offer(job, maxWaitNanos, TimeUnit.NANOSECONDS);
        }
        if (queued) {
            VarHandle.fullFence();
            wakeIfParked();
        }
        return queued;
    }

    /**
     * Does queued copies on the calling thread if no other thread is doing them; never waits.
     *
     * @return how many jobs it took or finished; 0 if another thread holds the consumer role
     */
    int progressOnCaller() {
        if (!pollersDrive || !running || !consumerRole.compareAndSet(false, true)) {
            return 0;
        }
        int work;
        int ended;
        try {
            work = drain(CALLER_BATCH);
            ended = lastEnded;
            if (lastTaken > 0) {
                takenByCallers.addAndGet(lastTaken);
            }
        } finally {
            consumerRole.set(false);
        }
        if (ended > 0) {
            signal.signal();
        }
        VarHandle.fullFence();
        if (!queue.isEmpty() || waitingCount > 0) {
            wakeIfParked();
        }
        return work;
    }

    /** The signal to fire after finishing jobs. */
    void signal(CompletionSignal signal) {
        this.signal = signal;
    }

    /** Callers started or stopped waiting; while they wait, the worker copies at once. */
    void callersWaiting(boolean waiting) {
        callersWaiting = waiting;
        if (waiting) {
            wake();
        }
    }

    /** How many jobs polling threads took from the queue so far. */
    long takenByCallers() {
        return takenByCallers.get();
    }

    /** Makes the worker look at its jobs now (an abort, a kill). */
    void wake() {
        LockSupport.unpark(thread);
    }

    /** Stops the worker; what it leaves queued or waiting fails. */
    void stop() {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void wakeIfParked() {
        if (parkState.get() == PARKED && parkState.compareAndSet(PARKED, RUNNING)) {
            LockSupport.unpark(thread);
        }
    }

    @Override
    public void run() {
        try {
            if (pollersDrive) {
                runAsFallback();
            } else {
                runAsCopier();
            }
        } finally {
            failAll();
        }
    }

    /** Does every copy: spins after work, then parks until woken. */
    private void runAsCopier() {
        int idle = 0;
        while (running) {
            if (drainIfFree() > 0) {
                idle = 0;
            } else if (++idle <= spins) {
                Thread.onSpinWait();
            } else {
                park(WAITING_PARK_NANOS);
            }
        }
    }

    /**
     * Leaves copies to polling threads, taking what they leave once per fallback interval; while
     * callers wait, copies at once and parks until a submit wakes it.
     */
    private void runAsFallback() {
        long lastWork = System.nanoTime();
        long interval = fallbackNanos;
        long maxInterval = fallbackNanos * MAX_FALLBACK_BACKOFF;
        long takenSeen = takenByCallers.get();
        while (running) {
            if (callersWaiting) {
                if (drainIfFree() <= 0) {
                    park(WAITING_PARK_NANOS);
                }
                lastWork = System.nanoTime();
                interval = fallbackNanos;
                continue;
            }
            LockSupport.parkNanos(this, interval);
            if (!running) {
                break;
            }
            int work = drainIfFree();
            int taken = work > 0 ? workerTaken : 0;
            long now = System.nanoTime();
            long takenNow = takenByCallers.get();
            boolean callersTook = takenNow != takenSeen;
            takenSeen = takenNow;
            if (taken > 0 || waitingCount > 0) {
                interval = fallbackNanos; // work was left for the fallback, or jobs wait: look often
            } else if (callersTook && queue.isEmpty()) {
                interval = Math.min(interval * 2, maxInterval); // the callers' polls did it all
            }
            if (work != 0 || !queue.isEmpty() || waitingCount > 0) {
                lastWork = now;
            } else if (now - lastWork > ARMED_NANOS) {
                park(fallbackNanos);
                lastWork = System.nanoTime();
                interval = fallbackNanos;
            }
        }
    }

    /**
     * Parks until woken if there is nothing to do; only for {@code busyNanos} if jobs wait or a
     * polling thread holds the role; not at all if the queue has work.
     */
    private void park(long busyNanos) {
        parkState.set(PARKED);
        VarHandle.fullFence();
        if (running && queue.isEmpty()) {
            if (waitingCount == 0 && !consumerRole.get()) {
                LockSupport.park(this);
            } else {
                LockSupport.parkNanos(this, busyNanos);
            }
        }
        parkState.set(RUNNING);
    }

    /** {@link #drain} under the role, then fires the signal if jobs ended; -1 if another thread holds the role. */
    private int drainIfFree() {
        if (!consumerRole.compareAndSet(false, true)) {
            return -1;
        }
        int work;
        int ended;
        try {
            work = drain(Integer.MAX_VALUE);
            ended = lastEnded;
            workerTaken = lastTaken;
        } finally {
            consumerRole.set(false);
        }
        if (ended > 0) {
            signal.signal();
        }
        return work;
    }

    /** Takes up to {@code batch} queued jobs and advances the waiting ones; returns how many moved. */
    private int drain(int batch) {
        int work = 0;
        int ended = 0;
        CopyJob job;
        while (work < batch && (job = queue.poll()) != null) {
            work++;
            if (process(job)) {
                ended++;
            } else {
                waiting.add(job);
            }
        }
        lastTaken = work;
        for (int i = waiting.size() - 1; i >= 0; i--) {
            if (process(waiting.get(i))) {
                waiting.remove(i);
                work++;
                ended++;
            }
        }
        lastEnded = ended;
        if (waitingCount != waiting.size()) {
            waitingCount = waiting.size();
        }
        return work;
    }

    // the yield waits for the consumer role, which a polling thread holds for one bounded batch; it
    // only lets that thread finish sooner on a busy machine, and nothing depends on the scheduler
    @SuppressWarnings("ThreadPriorityCheck")
    private void failAll() {
        while (!consumerRole.compareAndSet(false, true)) {
            Thread.yield();
        }
        try {
            CopyJob job;
            while ((job = queue.poll()) != null) {
                job.status = TransferEngine.FAILED;
            }
            for (CopyJob w : waiting) {
                w.status = TransferEngine.FAILED;
            }
            waiting.clear();
            waitingCount = 0;
        } finally {
            consumerRole.set(false);
        }
        signal.signal();
    }

    /** Advances a job; true when it is terminal. */
    private boolean process(CopyJob job) {
        LoopbackPeer peer = Objects.requireNonNull(job.peer, "a queued job is filled");
        LoopbackEngine target = peer.target;
        if (peer.aborted || engine.isKilled() || target.isKilled() || target.isClosed()) {
            job.status = TransferEngine.FAILED;
            return true;
        }
        if (!job.copied) {
            if (target.isStalled() || engine.isStalled()) {
                return false;
            }
            OutboundNotification early = job.notification;
            long lag = engine.notificationLeadNanos();
            if (early != null && lag > 0 && !job.notified) {
                // the injected fault: the notification overtakes the bytes by the lead
                target.notificationArrived(early.frame(), engine.agentName());
                job.notified = true;
                job.copiedAtNanos = System.nanoTime() + lag;
            }
            if (job.notified && System.nanoTime() - job.copiedAtNanos < 0) {
                return false;
            }
            try {
                copy(job, target);
            } catch (RuntimeException e) {
                job.status = TransferEngine.FAILED;
                return true;
            }
            job.copied = true;
            job.copiedAtNanos = System.nanoTime();
        }
        OutboundNotification notification = job.notification;
        if (notification != null && !job.notified) {
            long delay = engine.notificationDelayNanos();
            if (delay > 0 && System.nanoTime() - job.copiedAtNanos < delay) {
                return false;
            }
            target.notificationArrived(notification.frame(), engine.agentName());
            job.notified = true;
        }
        if (job.notBeforeNanos != 0 && System.nanoTime() - job.notBeforeNanos < 0) {
            return false;
        }
        job.status = TransferEngine.DONE;
        return true;
    }

    private void copy(CopyJob job, LoopbackEngine target) {
        MemorySegment local = engine.regionSegment();
        MemorySegment remote = target.regionSegment();
        long blockLength = engine.blockLength();
        boolean write = job.op == TransferOp.WRITE;
        int[] l = job.localBlocks;
        int[] r = job.remoteBlocks;
        int i = 0;
        while (i < job.count) {
            int run = 1;
            while (i + run < job.count && l[i + run] == l[i] + run && r[i + run] == r[i] + run) {
                run++;
            }
            long localOffset = l[i] * blockLength;
            long remoteOffset = r[i] * blockLength;
            long bytes = run * blockLength;
            if (write) {
                MemorySegment.copy(local, localOffset, remote, remoteOffset, bytes);
            } else {
                MemorySegment.copy(remote, remoteOffset, local, localOffset, bytes);
            }
            i += run;
        }
    }
}
