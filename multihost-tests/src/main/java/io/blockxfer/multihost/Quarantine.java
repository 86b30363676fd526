package io.blockxfer.multihost;

import org.jspecify.annotations.Nullable;

/**
 * When the quarantined blocks of a {@link RemoteBlocks} or {@link LocalBlocks} may be used again:
 * never ({@link #FOREVER}), or a settle time after the failure that last quarantined each of them.
 *
 * <p><b>Thread safety:</b> not thread-safe; owned, with its block model, by one {@link PeerSession}
 * thread.
 */
final class Quarantine {

    /** The settle time of a quarantine that lasts for the session's life. */
    static final long FOREVER = Long.MAX_VALUE;

    private final long settleNanos;
    /** When each block entered quarantine; null when blocks stay quarantined for ever. */
    private final long @Nullable [] since;

    /**
     * The quarantine clock of {@code blocks} blocks.
     *
     * @param settleNanos how long a block stays quarantined, or {@link #FOREVER}
     */
    Quarantine(int blocks, long settleNanos) {
        if (settleNanos < 0) {
            throw new IllegalArgumentException("settle time must not be negative: " + settleNanos + " ns");
        }
        this.settleNanos = settleNanos;
        this.since = settleNanos == FOREVER ? null : new long[blocks];
    }

    /** Block {@code index} was (again) quarantined now. */
    void started(int index) {
        if (since != null) {
            since[index] = System.nanoTime();
        }
    }

    /** Clears the flag of every quarantined block whose settle time has passed. */
    void releaseSettled(boolean[] quarantined) {
        if (since == null) {
            return;
        }
        long now = System.nanoTime();
        for (int i = 0; i < quarantined.length; i++) {
            if (quarantined[i] && now - since[i] >= settleNanos) {
                quarantined[i] = false;
            }
        }
    }
}
