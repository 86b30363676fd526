package io.blockxfer.cli.membership;

import io.blockxfer.tck.ForwardingTransport;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The transport it wraps, telling (with the wall clock in microseconds) each time a membership
 * asks it to add or remove a peer: {@code add OBSERVER PEER T}, {@code remove OBSERVER PEER T}.
 *
 * <p><b>Thread safety:</b> thread-safe, as the transport it wraps and the consumer.
 */
final class TimedTransport extends ForwardingTransport {

    private final String observer;
    private final Consumer<String> tell;

    TimedTransport(DataTransport delegate, String observer, Consumer<String> tell) {
        super(delegate);
        this.observer = observer;
        this.tell = tell;
    }

    @Override
    public void addPeer(String peerId, PeerDescriptor peer) {
        tell.accept("add " + observer + " " + peerId + " " + MembershipWorker.nowMicros());
        delegate.addPeer(peerId, peer);
    }

    @Override
    public CompletableFuture<Void> addPeerAsync(String peerId, PeerDescriptor peer) {
        tell.accept("add " + observer + " " + peerId + " " + MembershipWorker.nowMicros());
        return delegate.addPeerAsync(peerId, peer);
    }

    @Override
    public boolean removePeer(String peerId) {
        tell.accept("remove " + observer + " " + peerId + " " + MembershipWorker.nowMicros());
        return delegate.removePeer(peerId);
    }
}
