package io.blockxfer.tck.directory;

import io.blockxfer.tck.ForwardingTransport;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PeerRegistrationException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A transport that records every registration and removal asked of it ({@code "add b-1"},
 * {@code "remove b-1"}) before passing it on, and otherwise is the transport it wraps: so that a
 * directory rule, or a membership test with a real backend, can see what reached the transport
 * (and so its native library); it can also hold registrations under way
 * ({@link #holdRegistrations()}) or refuse them ({@link #refuseRegistrations}).
 *
 * <p><b>Thread safety:</b> thread-safe, as the transport it wraps.
 */
public final class RecordingTransport extends ForwardingTransport {

    private final List<String> calls = new ArrayList<>();
    private CompletableFuture<@Nullable Void> registrationGate = CompletableFuture.completedFuture(null);
    private boolean refusing;

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

    /**
     * While {@code refuse} holds, every asynchronous registration asked is recorded and fails with
     * a {@link PeerRegistrationException}, as one the backend cannot complete would, and never
     * reaches the transport it wraps.
     */
    public synchronized void refuseRegistrations(boolean refuse) {
        refusing = refuse;
    }

    @Override
    public CompletableFuture<Void> addPeerAsync(String peerId, PeerDescriptor peer) {
        CompletableFuture<@Nullable Void> gate;
        synchronized (this) {
            record("add " + peerId);
            gate = registrationGate;
            if (refusing) {
                return CompletableFuture.failedFuture(new PeerRegistrationException("registration of peer '" + peerId
                        + "' refused on purpose (RecordingTransport.refuseRegistrations)"));
            }
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
