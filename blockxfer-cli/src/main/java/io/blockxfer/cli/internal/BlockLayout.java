package io.blockxfer.cli.internal;

/**
 * How a benchmark pairs local and remote blocks within a batch.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public enum BlockLayout {
    /**
     * Local blocks in order, remote blocks a fixed random permutation: no two neighbours are
     * contiguous on both sides, so nothing can be coalesced (KV-cache blocks are scattered).
     */
    SHUFFLED,
    /** Both sides in order: a backend may move a whole batch as one run. */
    CONTIGUOUS
}
