package io.blockxfer.transport.internal;

import static io.blockxfer.transport.internal.TransportLog.LOG;

import io.blockxfer.transport.TransferFuture;
import io.blockxfer.transport.spi.TransferEngine;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Closes a managed transport in a safe order: wakes the threads waiting for completions (they
 * throw), fails the futures still pending and stops the completion thread, supersedes
 * registrations under way and stops the registration thread, waits (bounded) for every transfer to become terminal and releases it,
 * aborts the connections of what is still in flight and waits once more, disconnects every peer,
 * and closes the engine, telling it whether memory was leaked to transfers that never ended.
 * A release failure never skips the rest.
 *
 * <p><b>Thread safety:</b> thread-safe; the first {@link #close()} does the work, every later or
 * concurrent one waits for it.
 */
public final class Teardown {

    private final PeerTable peers;
    private final TransportState state;
    private final PeerRegistrar registrar;
    private final GuardedEngine engine;
    private final OrphanKeeper orphans;
    private final CompletionWaiters waiters;
    private final AsyncCompletions async;
    private final CompletionThread completionThread;
    private final long closeTimeoutNanos;
    private final String label;

    /** @param label how the transport names itself in log lines */
    public Teardown(PeerTable peers, TransportState state, PeerRegistrar registrar, GuardedEngine engine,
            OrphanKeeper orphans, CompletionWaiters waiters, AsyncCompletions async, CompletionThread completionThread,
            long closeTimeoutNanos, String label) {
        this.peers = peers;
        this.state = state;
        this.registrar = registrar;
        this.engine = engine;
        this.orphans = orphans;
        this.waiters = waiters;
        this.async = async;
        this.completionThread = completionThread;
        this.closeTimeoutNanos = closeTimeoutNanos;
        this.label = label;
    }

    /** Closes the transport; idempotent. */
    public void close() {
        if (!state.beginClose()) {
            state.awaitClosed();
            return;
        }
        try {
            waiters.close();
            failFutures();
            completionThread.stop(closeTimeoutNanos);
            registrar.supersedeAll();
            registrar.stop(closeTimeoutNanos);
            boolean leaked = drain(System.nanoTime() + closeTimeoutNanos);
            if (leaked) {
                for (PeerSlot slot : peers.all()) {
                    synchronized (slot) {
                        if (slot.registration != null) {
                            engine.abort(slot.registration);
                        }
                    }
                }
                leaked = drain(System.nanoTime() + Math.min(closeTimeoutNanos, TimeUnit.SECONDS.toNanos(1)));
                if (leaked) {
                    LOG.log(Level.WARNING, "{0}: transfers still in flight after the close timeout; their memory"
                            + " and registrations are left allocated", label);
                }
            }
            List<Object> toDisconnect = new ArrayList<>();
            for (PeerSlot slot : peers.all()) {
                synchronized (slot) {
                    Registration reg = slot.registration;
                    slot.registration = null;
                    if (reg != null && reg.retire()) {
                        toDisconnect.add(reg.peer());
                    }
                }
            }
            engine.disconnectAll(toDisconnect);
            peers.clear();
            engine.close(leaked);
        } finally {
            state.finishClose();
        }
    }

    /**
     * Fails the future of every asynchronous transfer still in flight (the transfer itself is
     * drained as any other), and completes those already queued.
     */
    private void failFutures() {
        for (PeerSlot slot : peers.all()) {
            synchronized (slot) {
                InflightTable table = slot.inflight;
                for (int i = 0; i < table.size(); i++) {
                    TransferFuture future = table.future(i);
                    if (future != null) {
                        async.closed(future);
                        table.clearFuture(i);
                    }
                }
            }
        }
        async.completeReady();
    }

    /**
     * Releases every transfer as it becomes terminal, until none is left (returns false) or the
     * deadline passes (returns true: some are leaked).
     */
    private boolean drain(long deadlineNanos) {
        while (true) {
            boolean busy = false;
            for (PeerSlot slot : peers.all()) {
                List<Object> toDisconnect = null;
                synchronized (slot) {
                    slot.owedDone.clear();
                    slot.owedFailures.clear();
                    InflightTable table = slot.inflight;
                    boolean[] keep = slot.keepFlags();
                    for (int i = 0; i < table.size(); i++) {
                        Object handle = table.handle(i);
                        keep[i] = engine.status(handle) == TransferEngine.PENDING;
                        if (keep[i]) {
                            busy = true;
                        } else {
                            toDisconnect = engine.release(handle, table.registration(i), toDisconnect);
                        }
                    }
                    table.compact(keep);
                }
                engine.disconnectAll(toDisconnect);
            }
            orphans.reap();
            if (!busy && orphans.isEmpty()) {
                return false;
            }
            if (System.nanoTime() - deadlineNanos > 0) {
                return true;
            }
            LockSupport.parkNanos(200_000);
        }
    }
}
