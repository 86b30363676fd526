package io.blockxfer.transport.internal;

import io.blockxfer.transport.CompletionHandler;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The waits: a poll that blocks until at least one transfer of its scope ended, its limit passed,
 * its thread was interrupted or the transport closed. It polls once; then keeps polling, back to
 * back, for a short spin ({@link #SPIN_NANOS}), so a transfer that ends within microseconds costs
 * no park and unpark; then registers with the {@link CompletionWaiters} and parks until the
 * engine's completion signal (or, for an engine without one, the completion thread's), the limit,
 * the earliest deadline of a transfer in its scope, close or interrupt, and polls again. Every
 * report reaches the caller exactly as a poll's would: what a wait takes, it returns.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class BlockingPolls {

    /**
     * How long a wait keeps polling before it parks, in microseconds: the system property
     * {@value #SPIN_PROPERTY}, 20 unless set (0 parks after the first poll). A 4 KiB transfer that
     * the polling thread drives itself ends within it; a caller pacing itself pays it only when its
     * transfer takes longer, then parks. docs/waiting.md has the measurements that set it.
     */
    static final String SPIN_PROPERTY = "blockxfer.waitSpinMicros";
    static final long SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(Math.max(0, Long.getLong(SPIN_PROPERTY, 20)));
    private static final long MAX_WAIT_NANOS = DataTransport.MAX_WAIT.toNanos();
    private static final long DEADLINE_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final CompletionTracker completions;
    private final CompletionWaiters waiters;
    private final TransportState state;
    private final long recheckNanos;
    private final String label;

    /**
     * @param recheckNanos the longest a waiter parks at a time, so that the deadline of a transfer
     *     submitted after it parked is met even if nothing signals
     * @param label how the transport names itself in messages
     */
    public BlockingPolls(CompletionTracker completions, CompletionWaiters waiters, TransportState state,
            long recheckNanos, String label) {
        this.completions = completions;
        this.waiters = waiters;
        this.state = state;
        this.recheckNanos = recheckNanos;
        this.label = label;
    }

    /** A wait of {@code peerId}'s transfers (every peer's when null). The caller checked the arguments. */
    public PollResult poll(@Nullable String peerId, long timeout, TimeUnit unit) throws InterruptedException {
        return await(peerId, nanos(timeout, unit)).toResult();
    }

    /** A wait of {@code peerId}'s transfers (every peer's when null), to {@code handler}. */
    public int poll(@Nullable String peerId, CompletionHandler handler, long timeout, TimeUnit unit)
            throws InterruptedException {
        return await(peerId, nanos(timeout, unit)).deliver(handler);
    }

    /** The limit in nanoseconds; checked before anything else, so a bad one changes nothing. */
    private static long nanos(long timeout, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        if (timeout < 0) {
            throw new IllegalArgumentException("wait limit must not be negative: " + timeout + " " + unit);
        }
        long nanos = unit.toNanos(timeout);
        if (nanos > MAX_WAIT_NANOS) {
            throw new IllegalArgumentException("wait limit " + timeout + " " + unit + " is longer than the most a"
                    + " wait accepts, " + DataTransport.MAX_WAIT.toHours() + " hours (DataTransport.MAX_WAIT)");
        }
        return nanos;
    }

    /** Waits; returns a scratch holding what to report (nothing when the limit passed). */
    private CompletionScratch await(@Nullable String peerId, long nanos) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before waiting on " + label);
        }
        state.ensureOpen();
        long start = System.nanoTime();
        CompletionScratch scratch = CompletionScratch.acquire();
        try {
            if (!collect(peerId, scratch) || scratch.count() > 0 || nanos == 0) {
                return scratch;
            }
            long deadline = start + nanos;
            long spinEnd = start + Math.min(SPIN_NANOS, nanos);
            long now;
            while ((now = System.nanoTime()) - spinEnd < 0) {
                Thread.onSpinWait();
                if (!collect(peerId, scratch) || scratch.count() > 0) {
                    return scratch;
                }
            }
            if (deadline - now <= 0) {
                return scratch;
            }
            parkUntilReported(peerId, scratch, deadline);
            return scratch;
        } catch (RuntimeException | Error | InterruptedException e) {
            scratch.release();
            throw e;
        }
    }

    /** Registers, then alternates looks and parks until a report, the limit, close or interrupt. */
    private void parkUntilReported(@Nullable String peerId, CompletionScratch scratch, long deadline)
            throws InterruptedException {
        CompletionWaiters.Waiter w = waiters.enter(true);
        try {
            while (true) {
                long seen = waiters.epoch();
                scratch.anyPending = false;
                if (!collect(peerId, scratch) || scratch.count() > 0) {
                    return;
                }
                long now = System.nanoTime();
                long park = deadline - now;
                if (park <= 0) {
                    return;
                }
                park = Math.min(park, recheckNanos);
                if (scratch.anyPending) {
                    park = Math.min(park, Math.max(1, scratch.earliestStart + completions.transferTimeoutNanos()
                            - now + DEADLINE_SLACK_NANOS));
                }
                waiters.park(w, seen, park);
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while waiting on " + label);
                }
            }
        } finally {
            waiters.leave(w);
        }
    }

    /**
     * One poll into {@code scratch}; false when the peer is not known. A close met here is
     * reported as the end of the wait.
     */
    private boolean collect(@Nullable String peerId, CompletionScratch scratch) {
        try {
            return completions.collect(peerId, scratch);
        } catch (IllegalStateException e) {
            if (!state.isOpen()) {
                throw new IllegalStateException("transport closed while waiting: " + label, e);
            }
            throw e;
        }
    }
}
