package io.blockxfer.tck;

import io.blockxfer.transport.BlockRegion;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.spi.CompletionSignal;
import io.blockxfer.transport.spi.NotificationSink;
import io.blockxfer.transport.spi.OutboundNotification;
import io.blockxfer.transport.spi.TransferEngine;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The kit's own initiator faults, for any backend built on {@code ManagedTransport}: a
 * {@link TransferEngine} that forwards every call to the backend's engine and injects the
 * {@link InitiatorFaults} around it. {@code InJvmHarness.withEngineFaults()} puts it under an
 * initiator through {@code ManagedTransport.withEngineDecorator}, and finds it again through
 * {@code feature(EngineFaults.class)}.
 *
 * <p>The faults act as {@code LoopbackFaults} do: a failed submit throws before the backend sees
 * it (the managed transport reports it failed); a delayed transfer moves its bytes as the backend
 * moves them, but its status stays {@link #PENDING} until the delay since its submit has passed
 * and the backend's own transfer is terminal. An {@link #abort} of its peer while it is held
 * makes it {@link #FAILED} once the backend's transfer is terminal, as a backend's abort makes the
 * peer's transfers in flight end. A held transfer is never reported terminal while the backend's
 * is not, so the managed transport still releases only terminal handles.
 *
 * <p><b>Thread safety:</b> thread-safe, as the engine contract requires.
 */
final class EngineFaults implements TransferEngine, InitiatorFaults {

    /** A transfer submitted while completions were delayed. */
    private static final class Held {
        final Object inner;
        final Object peer;
        final long notBeforeNanos;
        volatile boolean aborted;
        /** The terminal status once reported, so that it stays what it was. */
        volatile int terminal = PENDING;

        Held(Object inner, Object peer, long notBeforeNanos) {
            this.inner = inner;
            this.peer = peer;
            this.notBeforeNanos = notBeforeNanos;
        }
    }

    private final TransferEngine engine;
    private final AtomicInteger failNext = new AtomicInteger();
    private final Set<Held> held = ConcurrentHashMap.newKeySet();
    private volatile long delayNanos;

    EngineFaults(TransferEngine engine) {
        this.engine = Objects.requireNonNull(engine, "engine");
    }

    // ------------------------------------------------------------------ InitiatorFaults

    @Override
    public void failNextSubmits(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("count must not be negative: " + count);
        }
        failNext.set(count);
    }

    @Override
    public void delayCompletions(Duration delay) {
        Objects.requireNonNull(delay, "delay");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("delay must not be negative: " + delay);
        }
        delayNanos = delay.toNanos();
    }

    // ------------------------------------------------------------------ TransferEngine

    @Override
    public Object submit(long transferId, Object peer, TransferOp op, int[] localBlocks, int[] remoteBlocks) {
        return submit(transferId, peer, op, localBlocks, remoteBlocks, (Object) null);
    }

    /** A notification rides with the backend's own transfer: it follows the bytes, whatever the delay. */
    @Override
    public Object submit(long transferId, Object peer, TransferOp op, int[] localBlocks, int[] remoteBlocks,
            OutboundNotification notification) {
        return submit(transferId, peer, op, localBlocks, remoteBlocks, (Object) notification);
    }

    private Object submit(long transferId, Object peer, TransferOp op, int[] localBlocks, int[] remoteBlocks,
            @org.jspecify.annotations.Nullable Object notification) {
        if (failNext.get() > 0 && failNext.getAndDecrement() > 0) {
            throw new IllegalStateException("submit failure injected by the conformance kit");
        }
        long delay = delayNanos;
        Object inner = notification == null ? engine.submit(transferId, peer, op, localBlocks, remoteBlocks)
                : engine.submit(transferId, peer, op, localBlocks, remoteBlocks, (OutboundNotification) notification);
        if (delay == 0) {
            return inner;
        }
        Held h = new Held(inner, peer, System.nanoTime() + delay);
        held.add(h);
        return h;
    }

    @Override
    public int status(Object transfer) {
        if (!(transfer instanceof Held h)) {
            return engine.status(transfer);
        }
        int done = h.terminal;
        if (done != PENDING) {
            return done;
        }
        int status = engine.status(h.inner);
        if (status == PENDING) {
            return PENDING;
        }
        if (h.aborted) {
            status = FAILED;
        } else if (System.nanoTime() - h.notBeforeNanos < 0) {
            return PENDING;
        }
        h.terminal = status;
        return status;
    }

    @Override
    public void release(Object transfer) {
        if (transfer instanceof Held h) {
            held.remove(h);
            engine.release(h.inner);
        } else {
            engine.release(transfer);
        }
    }

    @Override
    public void abort(Object peer) {
        for (Held h : held) {
            if (h.peer == peer && h.terminal == PENDING) {
                h.aborted = true;
            }
        }
        engine.abort(peer);
    }

    @Override
    public boolean nativeTelemetry(Object transfer, long[] out) {
        return engine.nativeTelemetry(transfer instanceof Held h ? h.inner : transfer, out);
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
        held.clear();
        engine.close(leaked);
    }

    @Override
    public int progress() {
        return engine.progress();
    }

    /**
     * Not forwarded: a held transfer ends on the kit's clock, when its delay has passed, and the
     * wrapped engine would not signal that; the transport's status thread polls this engine instead.
     */
    @Override
    public boolean bindCompletionSignal(CompletionSignal signal) {
        return false;
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
        return type == EngineFaults.class ? Optional.of(type.cast(this)) : engine.feature(type);
    }

    @Override
    public String toString() {
        return "conformance kit faults around " + engine;
    }
}
