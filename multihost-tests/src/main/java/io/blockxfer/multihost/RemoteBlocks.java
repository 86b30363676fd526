package io.blockxfer.multihost;

import java.util.SplittableRandom;

/**
 * An initiator's model of one peer's region: for every remote block, the {@link
 * io.blockxfer.tck.BlockPattern} seed it holds (when known), whether a transfer of this session
 * uses it, and whether it is quarantined. A block is unknown while a WRITE to it is in flight and
 * for good after a WRITE to it failed; a block a failed WRITE touched is quarantined, because the
 * contract lets the bytes of a failed WRITE land later, which would spoil any verification of a
 * later transfer to it. A quarantine lasts for the session's life, or, when the session is given a
 * settle time, until that long after the failure was reported: a long-running session (the service
 * soak) cannot afford to lose blocks for good, and the backends stop landing bytes once the failed
 * transfer's native request has ended. A block back from quarantine is unknown, so it is written
 * before it is read again.
 *
 * <p><b>Thread safety:</b> not thread-safe; owned by one {@link PeerSession} thread.
 */
final class RemoteBlocks {

    private final long[] seeds;
    private final boolean[] known;
    private final boolean[] busy;
    private final boolean[] quarantined;
    private final int[] scratch;
    private final Quarantine quarantine;
    private int quarantinedCount;

    /** A peer of {@code numBlocks} blocks, block {@code b} holding the pattern {@code seedOf.applyAsLong(b)}. */
    RemoteBlocks(int numBlocks, java.util.function.IntToLongFunction seedOf) {
        this(numBlocks, seedOf, Quarantine.FOREVER);
    }

    /** As the other constructor, with quarantines that end {@code settleNanos} after they began. */
    RemoteBlocks(int numBlocks, java.util.function.IntToLongFunction seedOf, long settleNanos) {
        quarantine = new Quarantine(numBlocks, settleNanos);
        seeds = new long[numBlocks];
        known = new boolean[numBlocks];
        busy = new boolean[numBlocks];
        quarantined = new boolean[numBlocks];
        scratch = new int[numBlocks];
        for (int b = 0; b < numBlocks; b++) {
            seeds[b] = seedOf.applyAsLong(b);
            known[b] = true;
        }
    }

    int size() {
        return seeds.length;
    }

    /**
     * Picks up to {@code want} distinct random blocks that are free and not quarantined (and known,
     * if {@code knownOnly}) into {@code out}, and marks them busy.
     *
     * @return how many were picked
     */
    int take(int want, boolean knownOnly, SplittableRandom rng, int[] out) {
        quarantine.releaseSettled(quarantined);
        int candidates = 0;
        for (int b = 0; b < seeds.length; b++) {
            if (!busy[b] && !quarantined[b] && (!knownOnly || known[b])) {
                scratch[candidates++] = b;
            }
        }
        int n = Math.min(want, candidates);
        for (int i = 0; i < n; i++) {
            int j = i + rng.nextInt(candidates - i);
            int pick = scratch[j];
            scratch[j] = scratch[i];
            scratch[i] = pick;
            out[i] = pick;
            busy[pick] = true;
        }
        return n;
    }

    /** The seed block {@code b} holds; only meaningful when {@link #isKnown}. */
    long seed(int b) {
        return seeds[b];
    }

    boolean isKnown(int b) {
        return known[b];
    }

    /** A WRITE to {@code b} started: its contents are unknown until it completes. */
    void writing(int b) {
        known[b] = false;
    }

    /** A WRITE of {@code seed} to {@code b} completed. */
    void written(int b, long seed) {
        seeds[b] = seed;
        known[b] = true;
    }

    /** A WRITE to {@code b} failed: never use it again. */
    void quarantine(int b) {
        known[b] = false;
        if (!quarantined[b]) {
            quarantined[b] = true;
            quarantinedCount++;
        }
        quarantine.started(b);
    }

    /** No transfer of this session uses {@code b} any more. */
    void release(int b) {
        busy[b] = false;
    }

    int quarantinedCount() {
        return quarantinedCount;
    }

    /** {@code block:seed} of every known block, comma-separated, for the target to verify. */
    String describeKnown() {
        StringBuilder sb = new StringBuilder();
        for (int b = 0; b < seeds.length; b++) {
            if (known[b] && !busy[b] && !quarantined[b]) {
                if (!sb.isEmpty()) {
                    sb.append(',');
                }
                sb.append(b).append(':').append(seeds[b]);
            }
        }
        return sb.toString();
    }
}
