package io.blockxfer.transport.testing;

import io.blockxfer.transport.BlockRegion;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.CompletionSignal;
import io.blockxfer.transport.spi.TransferEngine;
import java.lang.foreign.Arena;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A transfer engine whose every outcome the test decides: transfers stay pending until the test
 * completes them, and connect, submit, status and release can be made to fail or block. It fires
 * the completion signal from {@link #complete} only if made to ({@link #ScriptedEngine(TransportConfig,
 * boolean)}). Not a backend: it moves no bytes.
 */
public final class ScriptedEngine implements TransferEngine {

    /** One scripted transfer. */
    public static final class Transfer {
        public final Object peer;
        public final int[] local;
        public final int[] remote;
        public volatile int status = PENDING;
        public volatile boolean released;
        public volatile boolean throwOnStatus;

        Transfer(Object peer, int[] local, int[] remote) {
            this.peer = peer;
            this.local = local.clone();
            this.remote = remote.clone();
        }
    }

    private final Arena arena = Arena.ofShared();
    private final BlockRegion region;
    public final List<Transfer> transfers = new CopyOnWriteArrayList<>();
    public final List<Object> aborted = new CopyOnWriteArrayList<>();
    public final List<Object> disconnected = new CopyOnWriteArrayList<>();
    public final AtomicInteger releases = new AtomicInteger();
    public volatile RuntimeException connectFailure;
    public volatile RuntimeException submitFailure;
    public volatile RuntimeException releaseFailure;
    /** How long each {@link #submit} takes, as a native backend's post of a transfer does. */
    public volatile long submitNanos;
    public volatile CountDownLatch connectGate;
    public final CountDownLatch connectEntered = new CountDownLatch(1);
    public volatile boolean completeOnAbort;
    public volatile boolean closed;
    public volatile boolean closedLeaked;
    /**
     * When not {@link #PENDING}: {@link #progress()} ends every pending transfer with this status,
     * as an engine its callers drive, except on threads whose name contains
     * {@link #notDrivenBy}.
     */
    public volatile int progressEnds = PENDING;
    /** Threads whose name contains this do not drive {@link #progress()}. */
    public volatile String notDrivenBy = "\0";
    /** Threads whose name contains this have their {@link #progress()} calls counted. */
    public volatile String countedThread = "\0";
    /** The {@link #progress()} calls of the threads {@link #countedThread} names. */
    public final AtomicInteger countedProgress = new AtomicInteger();
    /** Every {@code callersWaiting} call, in order. */
    public final List<Boolean> callersWaiting = new CopyOnWriteArrayList<>();
    private final boolean signals;
    private volatile CompletionSignal signal = () -> { };

    public ScriptedEngine(TransportConfig config) {
        this(config, false);
    }

    /** @param signals whether the engine fires the completion signal (from {@link #complete}) */
    public ScriptedEngine(TransportConfig config, boolean signals) {
        this.signals = signals;
        this.region = new BlockRegion(arena.allocate(config.region().byteSize()), config.region().numBlocks(),
                config.region().blockLength(), BlockRegion.Ownership.BACKEND);
    }

    public Transfer last() {
        return transfers.get(transfers.size() - 1);
    }

    public void completeAll(int status) {
        transfers.forEach(t -> t.status = status);
        signal.signal();
    }

    /** Ends {@code t} with {@code status}, then fires the completion signal if this engine does. */
    public void complete(Transfer t, int status) {
        t.status = status;
        signal.signal();
    }

    @Override
    public int progress() {
        if (Thread.currentThread().getName().contains(countedThread)) {
            countedProgress.incrementAndGet();
        }
        int ends = progressEnds;
        if (ends == PENDING || Thread.currentThread().getName().contains(notDrivenBy)) {
            return 0;
        }
        int n = 0;
        for (Transfer t : transfers) {
            if (t.status == PENDING) {
                t.status = ends;
                n++;
            }
        }
        if (n > 0) {
            signal.signal();
        }
        return n;
    }

    @Override
    public boolean bindCompletionSignal(CompletionSignal signal) {
        if (signals) {
            this.signal = signal;
        }
        return signals;
    }

    @Override
    public void callersWaiting(boolean waiting) {
        callersWaiting.add(waiting);
    }

    @Override
    public String backendName() {
        return "scripted";
    }

    @Override
    public BlockRegion region() {
        return region;
    }

    @Override
    public byte[] agentMetadata() {
        return new byte[] {42};
    }

    @Override
    public Object connect(String peerId, PeerDescriptor peer) {
        connectEntered.countDown();
        CountDownLatch gate = connectGate;
        if (gate != null) {
            try {
                gate.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (connectFailure != null) {
            throw connectFailure;
        }
        return "peer:" + peerId + "#" + System.identityHashCode(new Object());
    }

    @Override
    public Object submit(long transferId, Object peer, TransferOp op, int[] localBlocks, int[] remoteBlocks) {
        if (submitFailure != null) {
            throw submitFailure;
        }
        long end = System.nanoTime() + submitNanos;
        while (submitNanos > 0 && System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
        Transfer t = new Transfer(peer, localBlocks, remoteBlocks);
        transfers.add(t);
        return t;
    }

    @Override
    public int status(Object transfer) {
        Transfer t = (Transfer) transfer;
        if (t.throwOnStatus) {
            throw new IllegalStateException("scripted status failure");
        }
        return t.status;
    }

    @Override
    public void release(Object transfer) {
        Transfer t = (Transfer) transfer;
        if (t.status == PENDING) {
            throw new AssertionError("released a transfer still in flight");
        }
        if (t.released) {
            throw new AssertionError("released a transfer twice");
        }
        t.released = true;
        releases.incrementAndGet();
        if (releaseFailure != null) {
            throw releaseFailure;
        }
    }

    @Override
    public void abort(Object peer) {
        aborted.add(peer);
        if (completeOnAbort) {
            transfers.stream().filter(t -> t.peer.equals(peer) && t.status == PENDING).forEach(t -> t.status = FAILED);
        }
    }

    @Override
    public void disconnect(Object peer) {
        if (disconnected.contains(peer)) {
            throw new AssertionError("disconnected twice: " + peer);
        }
        for (Transfer t : transfers) {
            if (t.peer.equals(peer) && !t.released) {
                throw new AssertionError("disconnected " + peer + " while a transfer of it is not released");
            }
        }
        disconnected.add(peer);
    }

    @Override
    public void close(boolean leaked) {
        closed = true;
        closedLeaked = leaked;
        if (!leaked) {
            arena.close();
        }
    }
}
