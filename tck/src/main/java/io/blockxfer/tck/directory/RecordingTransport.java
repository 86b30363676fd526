package io.blockxfer.tck.directory;

import io.blockxfer.tck.ForwardingTransport;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A transport that records every registration and removal asked of it ({@code "add b-1"},
 * {@code "remove b-1"}) before passing it on, and otherwise is the transport it wraps: so that a
 * directory rule, or a membership test with a real backend, can see what reached the transport
 * (and so its native library); it can also hold registrations under way
 * ({@link #holdRegistrations()}).
 *
 * <p><b>Thread safety:</b> thread-safe, as the transport it wraps.
 */
public final class RecordingTransport extends ForwardingTransport {

    private final List<String> calls = new ArrayList<>();
    private CompletableFuture<@Nullable Void> registrationGate = CompletableFuture.completedFuture(null);

    /**
     * Records what is asked of {@code delegate}.
     *
     * @throws NullPointerException if {@code delegate} is null
     */
    public RecordingTransport(DataTransport delegate) {
        super(delegate);
    }

    /** Every registration and removal so far, in order. */
    public synchronized List<String> calls() {
        return List.copyOf(calls);
    }

    /** The calls about {@code peerId}. */
    public List<String> calls(String peerId) {
        return calls().stream().filter(c -> c.endsWith(" " + peerId)).toList();
    }

    private synchronized void record(String call) {
        calls.add(call);
    }

    @Override
    public void addPeer(String peerId, PeerDescriptor peer) {
        record("add " + peerId);
        delegate.addPeer(peerId, peer);
    }

    /**
     * Holds back the completion of every asynchronous registration asked from now on until
     * {@link #letRegistrationsGo()}: each is recorded and passed on to the transport it wraps at
     * once, but its future completes only then, as a slow registration's would, so that a
     * registration can be kept under way for as long as a rule needs.
     */
    public synchronized void holdRegistrations() {
        if (registrationGate.isDone()) {
            registrationGate = new CompletableFuture<>();
        }
    }

    /** Lets the registrations held since {@link #holdRegistrations()} complete, and holds no more. */
    public void letRegistrationsGo() {
        CompletableFuture<@Nullable Void> gate;
        synchronized (this) {
            gate = registrationGate;
        }
        gate.complete(null);
    }

    @Override
    public CompletableFuture<Void> addPeerAsync(String peerId, PeerDescriptor peer) {
        CompletableFuture<@Nullable Void> gate;
        synchronized (this) {
            record("add " + peerId);
            gate = registrationGate;
        }
        CompletableFuture<Void> registered = delegate.addPeerAsync(peerId, peer);
        return gate.isDone() ? registered : registered.thenCombine(gate, (done, let) -> null);
    }

    @Override
    public boolean removePeer(String peerId) {
        record("remove " + peerId);
        return delegate.removePeer(peerId);
    }
}
