package io.blockxfer.transport.internal;

import static io.blockxfer.transport.internal.TransportLog.LOG;

import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PeerRegistrationException;
import io.blockxfer.transport.TransportException;
import io.blockxfer.transport.spi.TransferEngine;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A backend's {@link TransferEngine} as the managed transport calls it: every native error of a
 * status check, release, abort, disconnect, progress or close becomes an outcome (a failed status,
 * a log line) instead of an exception, and a failed connect becomes a typed
 * {@link TransportException}.
 *
 * <p><b>Thread safety:</b> as thread-safe as the engine's contract allows; callers keep the
 * engine's rules on concurrent calls (see {@link TransferEngine}).
 */
public final class GuardedEngine {

    private final TransferEngine engine;
    private final String label;

    /** @param label how the transport names itself in log lines */
    public GuardedEngine(TransferEngine engine, String label) {
        this.engine = engine;
        this.label = label;
    }

    /** The engine itself, for calls whose errors the caller handles (submit, features). */
    public TransferEngine engine() {
        return engine;
    }

    /**
     * Builds the peer's native state.
     *
     * @throws TransportException as the engine threw it, or a {@link PeerRegistrationException}
     *     wrapping any other error
     */
    public Object connect(String peerId, PeerDescriptor peer) {
        try {
            Object handle = engine.connect(peerId, peer);
            return Objects.requireNonNull(handle, "engine returned no peer handle");
        } catch (TransportException e) {
            throw e;
        } catch (RuntimeException | LinkageError e) {
            throw new PeerRegistrationException("registering peer '" + peerId + "' with " + engine.backendName()
                    + " failed: " + e, e);
        }
    }

    /** Lets the calling thread advance the engine (see {@link TransferEngine#progress}). */
    public void progress() {
        try {
            engine.progress();
        } catch (RuntimeException | LinkageError e) {
            LOG.log(Level.DEBUG, () -> label + ": driving progress on the polling thread failed: " + e);
        }
    }

    /** Tells the engine that callers started or stopped waiting; a throw is logged. */
    public void callersWaiting(boolean waiting) {
        try {
            engine.callersWaiting(waiting);
        } catch (RuntimeException | LinkageError e) {
            LOG.log(Level.WARNING, () -> label + ": telling the engine that callers " + (waiting ? "wait" : "stopped"
                    + " waiting") + " failed: " + e);
        }
    }

    /** The transfer's state; a throw counts as {@link TransferEngine#FAILED}. */
    public int status(Object handle) {
        try {
            return engine.status(handle);
        } catch (RuntimeException | LinkageError e) {
            LOG.log(Level.DEBUG, () -> label + ": transfer status check failed: " + e);
            return TransferEngine.FAILED;
        }
    }

    /**
     * Releases a terminal transfer and counts it off its registration; when that was the last
     * transfer of a retired registration, adds its peer handle to {@code toDisconnect} (created
     * on demand) for the caller to disconnect outside its lock.
     */
    public @Nullable List<Object> release(Object handle, Registration reg, @Nullable List<Object> toDisconnect) {
        release(handle);
        if (reg.transferReleased()) {
            if (toDisconnect == null) {
                toDisconnect = new ArrayList<>(1);
            }
            toDisconnect.add(reg.peer());
        }
        return toDisconnect;
    }

    /** Releases a terminal transfer; a throw is logged. */
    public void release(Object handle) {
        try {
            engine.release(handle);
        } catch (RuntimeException | LinkageError e) {
            LOG.log(Level.WARNING, () -> label + ": releasing a terminal transfer failed: " + e);
        }
    }

    /** Force-closes the registration's connection; a throw is logged. */
    public void abort(Registration reg) {
        try {
            engine.abort(reg.peer());
        } catch (RuntimeException | LinkageError e) {
            LOG.log(Level.WARNING, () -> label + ": aborting a peer connection failed: " + e);
        }
    }

    /** Releases a peer's native state; null does nothing; a throw is logged. */
    public void disconnect(@Nullable Object peerHandle) {
        if (peerHandle == null) {
            return;
        }
        try {
            engine.disconnect(peerHandle);
        } catch (RuntimeException | LinkageError e) {
            LOG.log(Level.WARNING, () -> label + ": disconnecting a peer failed: " + e);
        }
    }

    /** {@link #disconnect} of each handle; null does nothing. */
    public void disconnectAll(@Nullable List<Object> peerHandles) {
        if (peerHandles != null) {
            peerHandles.forEach(this::disconnect);
        }
    }

    /** The backend's measurement of a terminal transfer, if any; a throw counts as none. */
    public boolean nativeTelemetry(Object handle, long[] out) {
        try {
            return engine.nativeTelemetry(handle, out);
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    /** Closes the engine; a throw is logged. */
    public void close(boolean leaked) {
        try {
            engine.close(leaked);
        } catch (RuntimeException | LinkageError e) {
            LOG.log(Level.WARNING, () -> label + ": closing the engine failed: " + e);
        }
    }
}
