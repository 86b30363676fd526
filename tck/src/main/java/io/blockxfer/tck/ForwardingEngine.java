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

/**
 * An engine that forwards every call: the kit's own engine wrappers (the count of T1's polls)
 * override the calls they watch, and its self-tests override pieces of it to break a working
 * engine.
 *
 * <p><b>Thread safety:</b> as thread-safe as the engine it forwards to.
 */
class ForwardingEngine implements TransferEngine {

    final TransferEngine delegate;

    ForwardingEngine(TransferEngine delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override public String backendName() { return delegate.backendName(); }
    @Override public BlockRegion region() { return delegate.region(); }
    @Override public byte[] agentMetadata() { return delegate.agentMetadata(); }
    @Override public Object connect(String peerId, PeerDescriptor peer) { return delegate.connect(peerId, peer); }
    @Override public Object submit(long transferId, Object peer, TransferOp op, int[] l, int[] r) {
        return delegate.submit(transferId, peer, op, l, r);
    }
    @Override public int status(Object transfer) { return delegate.status(transfer); }
    @Override public void release(Object transfer) { delegate.release(transfer); }
    @Override public void abort(Object peer) { delegate.abort(peer); }
    @Override public void disconnect(Object peer) { delegate.disconnect(peer); }
    @Override public void close(boolean leaked) { delegate.close(leaked); }
    @Override public boolean nativeTelemetry(Object transfer, long[] out) { return delegate.nativeTelemetry(transfer, out); }
    @Override public int progress() { return delegate.progress(); }
    @Override public boolean bindCompletionSignal(CompletionSignal signal) { return delegate.bindCompletionSignal(signal); }
    @Override public void callersWaiting(boolean waiting) { delegate.callersWaiting(waiting); }
    @Override public <T> Optional<T> feature(Class<T> type) { return delegate.feature(type); }
    @Override public boolean bindNotificationSink(NotificationSink sink) { return delegate.bindNotificationSink(sink); }
    @Override public Object submit(long transferId, Object peer, TransferOp op, int[] l, int[] r,
            OutboundNotification n) {
        return delegate.submit(transferId, peer, op, l, r, n);
    }
    @Override public void sendNotification(Object peer, OutboundNotification n) { delegate.sendNotification(peer, n); }
}
