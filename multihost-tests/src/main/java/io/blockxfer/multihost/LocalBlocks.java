package io.blockxfer.multihost;

import java.util.SplittableRandom;

/**
 * One session's share of the initiator's local region, blocks {@code first .. first+count-1}:
 * which are in use by a transfer of the session and which are quarantined. A block a failed READ
 * targeted is quarantined, because the contract lets the bytes of a failed READ land later, which
 * would spoil the verification of a later READ into it. As in {@link RemoteBlocks}, a quarantine lasts
 * for the session's life unless the session has a settle time.
 *
 * <p><b>Thread safety:</b> not thread-safe; owned by one {@link PeerSession} thread.
 */
final class LocalBlocks {

    private final int first;
    private final boolean[] busy;
    private final boolean[] quarantined;
    private final int[] scratch;
    private final Quarantine quarantine;
    private int quarantinedCount;

    LocalBlocks(int first, int count) {
        this(first, count, Quarantine.FOREVER);
    }

    /** As the other constructor, with quarantines that end {@code settleNanos} after they began. */
    LocalBlocks(int first, int count, long settleNanos) {
        this.quarantine = new Quarantine(count, settleNanos);
        this.first = first;
        busy = new boolean[count];
        quarantined = new boolean[count];
        scratch = new int[count];
    }

    /**
     * Picks up to {@code want} distinct random free blocks into {@code out} (region indices) and marks them busy.
     *
     * @return how many were picked
     */
    int take(int want, SplittableRandom rng, int[] out) {
        quarantine.releaseSettled(quarantined);
        int candidates = 0;
        for (int i = 0; i < busy.length; i++) {
            if (!busy[i] && !quarantined[i]) {
                scratch[candidates++] = i;
            }
        }
        int n = Math.min(want, candidates);
        for (int i = 0; i < n; i++) {
            int j = i + rng.nextInt(candidates - i);
            int pick = scratch[j];
            scratch[j] = scratch[i];
            scratch[i] = pick;
            busy[pick] = true;
            out[i] = first + pick;
        }
        return n;
    }

    /** Block {@code block} (a region index) is free again. */
    void release(int block) {
        busy[block - first] = false;
    }

    /** Block {@code block} (a region index) must never be used again. */
    void quarantine(int block) {
        int i = block - first;
        busy[i] = false;
        if (!quarantined[i]) {
            quarantined[i] = true;
            quarantinedCount++;
        }
        quarantine.started(i);
    }

    int quarantinedCount() {
        return quarantinedCount;
    }
}
