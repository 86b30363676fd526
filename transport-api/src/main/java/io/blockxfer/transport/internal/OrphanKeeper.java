package io.blockxfer.transport.internal;

import io.blockxfer.transport.spi.TransferEngine;
import java.util.List;

/**
 * Keeps the native transfers that nobody will be told about any more (cancelled, abandoned at a
 * deadline, left by a removed peer) until the engine reports them terminal, then releases them,
 * and disconnects a retired peer once its last one is gone.
 *
 * <p><b>Thread safety:</b> thread-safe; one lock guards the set, and {@link #isEmpty()} reads a
 * volatile count without it, so the polls of a transport with no orphans never take that lock.
 */
public final class OrphanKeeper {

    private final GuardedEngine engine;
    private final OrphanSet orphans = new OrphanSet();
    private volatile int count;

    public OrphanKeeper(GuardedEngine engine) {
        this.engine = engine;
    }

    /** Takes over a transfer still in flight. */
    public void adopt(Object handle, Registration reg) {
        synchronized (orphans) {
            orphans.add(handle, reg);
            count = orphans.size();
        }
    }

    /** Whether no orphan is kept. */
    public boolean isEmpty() {
        return count == 0;
    }

    /** Releases every orphan that became terminal, and disconnects the peers they held last. */
    public void reap() {
        if (count == 0) {
            return;
        }
        List<Object> toDisconnect = null;
        synchronized (orphans) {
            for (int i = orphans.size() - 1; i >= 0; i--) {
                Object handle = orphans.handle(i);
                if (engine.status(handle) != TransferEngine.PENDING) {
                    toDisconnect = engine.release(handle, orphans.registration(i), toDisconnect);
                    orphans.removeAt(i);
                }
            }
            count = orphans.size();
        }
        engine.disconnectAll(toDisconnect);
    }
}
