package io.blockxfer.nixl.internal;

import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.spi.TransferEngine;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One transfer of a {@link NixlEngine}: NIXL's request and what the engine tracks about it.
 *
 * <p>A transfer without a notification is touched only by the managed transport's calls (never two
 * at once for one transfer) and is pooled ({@link Pool}): after release the object carries a later
 * transfer, so a steady stream of transfers allocates nothing.
 *
 * <p>A transfer with a notification is also checked by the engine's notification thread while it is
 * in flight ({@link NotificationPump}), because NIXL sends the message from the initiator's status
 * check: a transfer nobody polls would otherwise never notify its target. Its state is then read
 * and written only under {@link #tryClaim()} (a transfer request is never used by two threads at
 * once), and it is never pooled, so the notification thread's reference never meets a later transfer.
 *
 * <p><b>Thread safety:</b> see above; fields are guarded by the managed transport's rules or by the claim.
 */
final class NixlXfer {

    private static final VarHandle CLAIMED;

    static {
        try {
            CLAIMED = MethodHandles.lookup().findVarHandle(NixlXfer.class, "claimed", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    long id;
    long request;
    // set by set() before the object is handed out; null only while it lies in the pool
    @SuppressWarnings("NullAway.Init")
    NixlEngine.NixlPeer peer;
    @SuppressWarnings("NullAway.Init")
    TransferOp op;
    int blocks;
    int state;
    boolean fenced;
    boolean measured;
    /** Carries a notification: checked by the notification thread too, never pooled. */
    boolean notified;
    /** When a notified transfer was posted ({@link System#nanoTime()}). */
    long postedNanos;
    long postMicros;
    long transferMicros;
    long bytes;
    long descriptors;
    @SuppressWarnings("unused") // through CLAIMED
    private volatile int claimed;

    NixlXfer set(long transferId, long req, NixlEngine.NixlPeer p, TransferOp o, int n, boolean isFenced,
            boolean hasNotification) {
        this.id = transferId;
        this.request = req;
        this.peer = p;
        this.op = o;
        this.blocks = n;
        this.state = TransferEngine.PENDING;
        this.fenced = isFenced;
        this.measured = false;
        this.notified = hasNotification;
        return this;
    }

    /** Claims a notified transfer for one status check; false while another thread checks it. */
    boolean tryClaim() {
        return CLAIMED.compareAndSet(this, 0, 1);
    }

    /** Ends a claim. */
    void unclaim() {
        CLAIMED.setVolatile(this, 0);
    }

    /** A bounded stack of released transfers without a notification; a lock, as submit and release may run on different threads. */
    static final class Pool {
        private static final int MAX = 4096;
        private final NixlXfer[] free = new NixlXfer[MAX];
        private int size;

        synchronized NixlXfer take() {
            if (size == 0) {
                return new NixlXfer();
            }
            NixlXfer x = free[--size];
            free[size] = null;
            return x;
        }

        // a pooled transfer is read again only after take() and set() filled it: dropping the peer
        // here lets a removed peer be collected while its last transfer object lies in the pool
        @SuppressWarnings("NullAway")
        synchronized void give(NixlXfer x) {
            if (x.notified) {
                return; // the notification thread may still hold it: never reused
            }
            x.peer = null;
            if (size < MAX) {
                free[size++] = x;
            }
        }
    }
}
