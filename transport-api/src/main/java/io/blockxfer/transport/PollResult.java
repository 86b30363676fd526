package io.blockxfer.transport;

import java.util.Arrays;
import java.util.Objects;

/**
 * The transfers one poll found terminal: ids that completed ({@code done}) and ids that ended in
 * any other way ({@code failed}), each in the order the poll met them. Polls with nothing to
 * report return the shared {@link #EMPTY}.
 *
 * <p><b>Thread safety:</b> immutable. Accessors that return arrays return copies; the indexed
 * accessors allocate nothing.
 */
public final class PollResult {

    private static final long[] NONE = new long[0];

    /** The one result of every poll that found nothing. */
    public static final PollResult EMPTY = new PollResult(NONE, NONE);

    private final long[] done;
    private final long[] failed;

    private PollResult(long[] done, long[] failed) {
        this.done = done;
        this.failed = failed;
    }

    /**
     * A result over copies of the given ids; {@link #EMPTY} when both are empty.
     */
    public static PollResult of(long[] done, long[] failed) {
        Objects.requireNonNull(done, "done");
        Objects.requireNonNull(failed, "failed");
        return of(done, done.length, failed, failed.length);
    }

    /**
     * A result over copies of the first {@code doneCount} and {@code failedCount} ids of the given
     * arrays; {@link #EMPTY} when both counts are zero.
     */
    public static PollResult of(long[] done, int doneCount, long[] failed, int failedCount) {
        if (doneCount == 0 && failedCount == 0) {
            return EMPTY;
        }
        return new PollResult(
                doneCount == 0 ? NONE : Arrays.copyOf(done, doneCount),
                failedCount == 0 ? NONE : Arrays.copyOf(failed, failedCount));
    }

    /** Whether nothing became terminal. */
    public boolean isEmpty() {
        return done.length == 0 && failed.length == 0;
    }

    /** How many transfers completed. */
    public int doneCount() {
        return done.length;
    }

    /** The {@code i}-th completed id. */
    public long doneId(int i) {
        return done[i];
    }

    /** How many transfers failed. */
    public int failedCount() {
        return failed.length;
    }

    /** The {@code i}-th failed id. */
    public long failedId(int i) {
        return failed[i];
    }

    /** A copy of the completed ids. */
    public long[] done() {
        return done.length == 0 ? NONE : done.clone();
    }

    /** A copy of the failed ids. */
    public long[] failed() {
        return failed.length == 0 ? NONE : failed.clone();
    }

    /** Replays this result into {@code handler}, done ids first. */
    public void forEach(CompletionHandler handler) {
        for (long id : done) {
            handler.onTerminal(id, true);
        }
        for (long id : failed) {
            handler.onTerminal(id, false);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PollResult other && Arrays.equals(done, other.done) && Arrays.equals(failed, other.failed);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(done) + Arrays.hashCode(failed);
    }

    @Override
    public String toString() {
        return "PollResult[done=" + Arrays.toString(done) + ", failed=" + Arrays.toString(failed) + "]";
    }
}
