package io.blockxfer.tck;

import io.blockxfer.transport.BlockRegion;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.spi.CompletionSignal;
import io.blockxfer.transport.spi.NotificationSink;
import io.blockxfer.transport.spi.OutboundNotification;
import io.blockxfer.transport.spi.TransferEngine;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

/**
 * Counts the work that one thread's polls do: an engine decorator, put under an initiator through
 * {@code ManagedTransport.withEngineDecorator}, that forwards every call and adds up the calls of
 * {@link TransferEngine#progress()} made on the counted thread and the events they returned. Rule
 * T1 counts so that a backend whose polls do nothing is caught even where its fallback thread is
 * faster than the declared bound.
 *
 * <p><b>Thread safety:</b> thread-safe; the engine it builds is called from any thread, as the
 * engine contract allows.
 */
final class PollWork {

    private final Thread counted;
    private final AtomicLong calls = new AtomicLong();
    private final AtomicLong events = new AtomicLong();
    private volatile boolean attached;

    /** Counts the polls that {@code counted} makes. */
    PollWork(Thread counted) {
        this.counted = Objects.requireNonNull(counted, "counted");
    }

    /** The decorator to give {@code ManagedTransport.withEngineDecorator}. */
    UnaryOperator<TransferEngine> decorator() {
        return engine -> {
            attached = true;
            return new Counting(engine);
        };
    }

    /** Whether an engine passed through {@link #decorator()}: false for a transport not built on {@code ManagedTransport}. */
    boolean attached() {
        return attached;
    }

    /** The counted thread's calls of {@code progress()} so far. */
    long calls() {
        return calls.get();
    }

    /** The events those calls processed, as the engine reported them. */
    long events() {
        return events.get();
    }

    private final class Counting implements TransferEngine {
        private final TransferEngine engine;

        Counting(TransferEngine engine) {
            this.engine = engine;
        }

        @Override
        public int progress() {
            int n = engine.progress();
            if (Thread.currentThread() == counted) {
                calls.incrementAndGet();
                events.addAndGet(Math.max(0, n));
            }
            return n;
        }

        @Override
        public Object submit(long transferId, Object peer, TransferOp op, int[] localBlocks, int[] remoteBlocks) {
            return engine.submit(transferId, peer, op, localBlocks, remoteBlocks);
        }

        @Override
        public Object submit(long transferId, Object peer, TransferOp op, int[] localBlocks, int[] remoteBlocks,
                OutboundNotification notification) {
            return engine.submit(transferId, peer, op, localBlocks, remoteBlocks, notification);
        }

        @Override
        public int status(Object transfer) {
            return engine.status(transfer);
        }

        @Override
        public void release(Object transfer) {
            engine.release(transfer);
        }

        @Override
        public void abort(Object peer) {
            engine.abort(peer);
        }

        @Override
        public boolean nativeTelemetry(Object transfer, long[] out) {
            return engine.nativeTelemetry(transfer, out);
        }

        @Override
        public String backendName() {
            return engine.backendName();
        }

        @Override
        public BlockRegion region() {
            return engine.region();
        }

        @Override
        public byte[] agentMetadata() {
            return engine.agentMetadata();
        }

        @Override
        public Object connect(String peerId, PeerDescriptor peer) {
            return engine.connect(peerId, peer);
        }

        @Override
        public void disconnect(Object peer) {
            engine.disconnect(peer);
        }

        @Override
        public void close(boolean leaked) {
            engine.close(leaked);
        }

        @Override
        public boolean bindCompletionSignal(CompletionSignal signal) {
            return engine.bindCompletionSignal(signal);
        }

        @Override
        public void callersWaiting(boolean waiting) {
            engine.callersWaiting(waiting);
        }

        @Override
        public boolean bindNotificationSink(NotificationSink sink) {
            return engine.bindNotificationSink(sink);
        }

        @Override
        public void sendNotification(Object peer, OutboundNotification notification) {
            engine.sendNotification(peer, notification);
        }

        @Override
        public <T> Optional<T> feature(Class<T> type) {
            return engine.feature(type);
        }

        @Override
        public String toString() {
            return "poll-work counter around " + engine;
        }
    }

    @Override
    public String toString() {
        return calls() + " progress calls on " + counted.getName() + ", " + events() + " events"
                + (attached ? "" : " (no engine passed through the counter)");
    }
}
