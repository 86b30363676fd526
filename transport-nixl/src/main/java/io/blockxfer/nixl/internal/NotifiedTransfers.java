package io.blockxfer.nixl.internal;

import io.blockxfer.transport.spi.TransferEngine;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.ToIntFunction;

/**
 * The engine's transfers that carry a notification and were still in flight after their post. NIXL
 * sends such a transfer's message from the initiator's status check once the transfer completed
 * (UCX backend: {@code checkXfer}), so an initiator that polls rarely would hold its target's
 * message back, and one that never polls again would never send it. The notification thread
 * ({@link NotificationPump}) therefore checks the status of those that stayed in flight longer than
 * {@value #GRACE_MICROS} us, which a caller polling promptly never leaves them, so it does not
 * compete with such a caller. A transfer leaves the list once it is terminal, whoever saw it end.
 *
 * <p><b>Thread safety:</b> thread-safe; {@link #advance()} from one thread at a time (the pump's).
 */
final class NotifiedTransfers {

    /** How long a notified transfer may stay in flight before the notification thread checks it. */
    static final long GRACE_MICROS = 500;
    private static final long GRACE_NANOS = TimeUnit.MICROSECONDS.toNanos(GRACE_MICROS);

    private final Object lock = new Object();
    private final ToIntFunction<NixlXfer> check;
    // guarded by lock
    private ArrayList<NixlXfer> inFlight = new ArrayList<>();
    private ArrayList<NixlXfer> spare = new ArrayList<>();
    private volatile int size;

    /**
     * @param check checks one claimed transfer's status with NIXL: {@link TransferEngine#PENDING},
     *     {@link TransferEngine#DONE} or {@link TransferEngine#FAILED}
     */
    NotifiedTransfers(ToIntFunction<NixlXfer> check) {
        this.check = check;
    }

    /** A notified transfer stayed in flight at its post ({@code x.postedNanos} set). */
    void add(NixlXfer x) {
        synchronized (lock) {
            inFlight.add(x);
            size = inFlight.size();
        }
    }

    /** Whether any is listed. */
    boolean any() {
        return size > 0;
    }

    /**
     * Drops the transfers that ended, and checks the status of those in flight past the grace time
     * that no other thread is checking right now.
     *
     * @return how many this call's checks found ended
     * @throws RuntimeException the first failure of a check (the transfer stays listed)
     */
    int advance() {
        ArrayList<NixlXfer> batch;
        synchronized (lock) {
            if (inFlight.isEmpty()) {
                return 0;
            }
            batch = inFlight;
            inFlight = spare;
            size = 0;
        }
        int ended = 0;
        long now = System.nanoTime();
        ArrayList<NixlXfer> keep = new ArrayList<>(0);
        RuntimeException failure = null;
        for (int i = 0; i < batch.size(); i++) {
            NixlXfer x = batch.get(i);
            if (!x.tryClaim()) {
                keep.add(x);
                continue;
            }
            try {
                if (x.state != TransferEngine.PENDING) {
                    continue;
                }
                if (now - x.postedNanos < GRACE_NANOS || check.applyAsInt(x) == TransferEngine.PENDING) {
                    keep.add(x);
                } else {
                    ended++;
                }
            } catch (RuntimeException e) {
                keep.add(x); // left to the managed transport's own polls
                failure = failure == null ? e : failure;
            } finally {
                x.unclaim();
            }
        }
        batch.clear();
        synchronized (lock) {
            spare = batch;
            inFlight.addAll(keep);
            size = inFlight.size();
        }
        if (failure != null) {
            throw failure;
        }
        return ended;
    }
}
