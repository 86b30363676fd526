package io.blockxfer.tck.holds;

import io.blockxfer.tck.ForwardingTransport;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.TransferFuture;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * A transport whose asynchronous transfers a rule can hold back: while the gate is shut, a submit
 * returns a future at once and the transfer starts only when the gate opens, so a rule can look at
 * the owner while the holder's last transfer has not moved a byte. Messages without a transfer go
 * through.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
final class Gate extends ForwardingTransport {

    private final List<Runnable> held = new ArrayList<>();
    private boolean shut;

    Gate(DataTransport delegate) {
        super(delegate);
    }

    /** Holds back every transfer submitted from now on. */
    synchronized void shut() {
        shut = true;
    }

    /** Starts the transfers held back, and lets later ones through. */
    void open() {
        List<Runnable> go;
        synchronized (this) {
            shut = false;
            go = new ArrayList<>(held);
            held.clear();
        }
        go.forEach(Runnable::run);
    }

    /** How many transfers wait behind the gate. */
    synchronized int waiting() {
        return held.size();
    }

    private TransferFuture pass(String peerId, Supplier<TransferFuture> submit) {
        TransferFuture later;
        synchronized (this) {
            if (!shut) {
                later = null;
            } else {
                later = new TransferFuture(0, peerId, id -> { });
                TransferFuture f = later;
                held.add(() -> {
                    // the held future f is completed from here; nothing waits on the dependent stage
                    var unused = submit.get().whenComplete((v, err) -> {
                        if (err != null) {
                            f.completeExceptionally(err);
                        } else {
                            f.complete(null);
                        }
                    });
                });
            }
        }
        return later != null ? later : submit.get();
    }

    @Override
    public TransferFuture readBlocksAsync(String peerId, int[] l, int[] r) {
        return pass(peerId, () -> delegate.readBlocksAsync(peerId, l, r));
    }

    @Override
    public TransferFuture readBlocksAsync(String peerId, int[] l, int[] r, byte[] notification) {
        return pass(peerId, () -> delegate.readBlocksAsync(peerId, l, r, notification));
    }

    @Override
    public TransferFuture writeBlocksAsync(String peerId, int[] l, int[] r) {
        return pass(peerId, () -> delegate.writeBlocksAsync(peerId, l, r));
    }

    @Override
    public TransferFuture writeBlocksAsync(String peerId, int[] l, int[] r, byte[] notification) {
        return pass(peerId, () -> delegate.writeBlocksAsync(peerId, l, r, notification));
    }
}
