package io.blockxfer.transport.internal;

import io.blockxfer.transport.CompletionHandler;
import io.blockxfer.transport.PollResult;

/**
 * Per-thread buffers that a poll fills under the peer lock and delivers after releasing it, so
 * that polls allocate nothing in the steady state and handlers may call back into the transport.
 *
 * <p><b>Thread safety:</b> confined to one thread; {@link #acquire()} hands out a fresh instance
 * when a handler polls again from inside a delivery.
 */
public final class CompletionScratch {

    private static final ThreadLocal<CompletionScratch> PER_THREAD = ThreadLocal.withInitial(CompletionScratch::new);

    public final IdList done = new IdList();
    public final IdList failed = new IdList();
    /** Whether the poll left transfers in flight. */
    public boolean anyPending;
    /**
     * The earliest start ({@link System#nanoTime()}) of the transfers the poll left in flight,
     * when {@link #anyPending}: a waiter parks no longer than their deadline.
     */
    public long earliestStart;
    private boolean inUse;

    private CompletionScratch() {
    }

    public static CompletionScratch acquire() {
        CompletionScratch s = PER_THREAD.get();
        if (s.inUse) {
            s = new CompletionScratch();
        }
        s.inUse = true;
        s.done.clear();
        s.failed.clear();
        s.anyPending = false;
        return s;
    }

    /** Notes a transfer left in flight, started at {@code startNanos}. */
    public void pending(long startNanos) {
        if (!anyPending || startNanos - earliestStart < 0) {
            earliestStart = startNanos;
            anyPending = true;
        }
    }

    /** Releases the buffers without delivering; only for a scratch that holds nothing. */
    public void release() {
        inUse = false;
    }

    public void add(long id, boolean success) {
        (success ? done : failed).add(id);
    }

    public int count() {
        return done.size() + failed.size();
    }

    /** Delivers done ids, then failed ids, and releases the buffers. */
    public int deliver(CompletionHandler handler) {
        try {
            for (int i = 0; i < done.size(); i++) {
                handler.onTerminal(done.get(i), true);
            }
            for (int i = 0; i < failed.size(); i++) {
                handler.onTerminal(failed.get(i), false);
            }
            return count();
        } finally {
            inUse = false;
        }
    }

    /** Copies the ids into a result and releases the buffers. */
    public PollResult toResult() {
        try {
            return PollResult.of(done.array(), done.size(), failed.array(), failed.size());
        } finally {
            inUse = false;
        }
    }
}
