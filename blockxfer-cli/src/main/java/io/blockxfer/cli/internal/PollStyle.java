package io.blockxfer.cli.internal;

import java.util.Locale;

/**
 * How a benchmark's caller learns that its transfers ended: the three polling callers the progress
 * model is measured with (DESIGN.md, "Progress model"), and the three that wait without polling
 * ("Waiting model"): a wait, a future blocked on, a future's dependent.
 *
 * <p><b>Thread safety:</b> an enum; immutable.
 */
public enum PollStyle {
    /** Polls again at once after an empty poll: the lowest latency, one core busy polling. */
    SPIN,
    /**
     * After an empty poll, spins a few times, then yields, then parks for a few microseconds:
     * frees the core for the threads that move the bytes, at a cost of some microseconds.
     */
    BACKOFF,
    /**
     * Polls once per interval ({@code --poll-interval}, 100 us by default) whatever the poll
     * found, sleeping in between: a caller that checks on its transfers now and then.
     */
    INTERVAL,
    /**
     * Waits in the transport ({@code poll(peer, handler, limit)}): a short spin, then a park until
     * the backend signals a completion; no core is spent polling.
     */
    WAIT,
    /**
     * Submits with {@code writeBlocksAsync}/{@code readBlocksAsync} and blocks on the oldest
     * future in flight ({@code get} with a limit): the blocked thread drives the transport as a
     * wait does, and completes the future itself.
     */
    JOIN,
    /**
     * Submits with {@code writeBlocksAsync}/{@code readBlocksAsync} and adds a non-async dependent
     * ({@code whenComplete}) to each future, which hands the ended slot to the caller; the
     * transport's completion thread completes the futures, and runs the dependents. The latency
     * ends when the dependent runs.
     */
    CALLBACK;

    /** The name in options and reports. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
