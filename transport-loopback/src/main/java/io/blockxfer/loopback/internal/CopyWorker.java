package io.blockxfer.loopback.internal;

import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.internal.queue.MpscRing;
import io.blockxfer.transport.spi.TransferEngine;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.concurrent.locks.LockSupport;

/**
 * The thread that moves one loopback engine's transfers: takes jobs in submission order, copies
 * contiguous block runs with one {@link MemorySegment#copy} each, and keeps jobs whose target is
 * stalled or whose completion is delayed until they can finish. Spins briefly, then parks, when
 * idle.
 *
 * <p><b>Thread safety:</b> {@link #offer} from any thread; everything else on the worker thread.
 */
final class CopyWorker implements Runnable {

    private static final int SPINS = 20_000;
    private static final long PARK_NANOS = 200_000;

    private final LoopbackEngine engine;
    private final MpscRing<CopyJob> queue = new MpscRing<>(1 << 16);
    private final ArrayList<CopyJob> waiting = new ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean parked;

    CopyWorker(LoopbackEngine engine, String name) {
        this.engine = engine;
        this.thread = Thread.ofPlatform().name(name).daemon().unstarted(this);
        thread.start();
    }

    boolean offer(CopyJob job) {
        if (!queue.offer(job)) {
            return false;
        }
        if (parked) {
            LockSupport.unpark(thread);
        }
        return true;
    }

    void wake() {
        LockSupport.unpark(thread);
    }

    void stop() {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void run() {
        int idle = 0;
        while (running) {
            boolean worked = false;
            CopyJob job;
            while ((job = queue.poll()) != null) {
                worked = true;
                if (!process(job)) {
                    waiting.add(job);
                }
            }
            for (int i = waiting.size() - 1; i >= 0; i--) {
                if (process(waiting.get(i))) {
                    waiting.remove(i);
                    worked = true;
                }
            }
            if (worked) {
                idle = 0;
            } else if (++idle > SPINS) {
                parked = true;
                if (queue.isEmpty()) {
                    LockSupport.parkNanos(PARK_NANOS);
                }
                parked = false;
            } else {
                Thread.onSpinWait();
            }
        }
        failAll();
    }

    private void failAll() {
        CopyJob job;
        while ((job = queue.poll()) != null) {
            job.status = TransferEngine.FAILED;
        }
        for (CopyJob w : waiting) {
            w.status = TransferEngine.FAILED;
        }
        waiting.clear();
    }

    /** Advances a job; true when it is terminal. */
    private boolean process(CopyJob job) {
        LoopbackPeer peer = job.peer;
        LoopbackEngine target = peer.target;
        if (peer.aborted || engine.isKilled() || target.isKilled() || target.isClosed()) {
            job.status = TransferEngine.FAILED;
            return true;
        }
        if (!job.copied) {
            if (target.isStalled() || engine.isStalled()) {
                return false;
            }
            try {
                copy(job, target);
            } catch (RuntimeException e) {
                job.status = TransferEngine.FAILED;
                return true;
            }
            job.copied = true;
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
