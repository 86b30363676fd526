package io.blockxfer.multihost;

import java.util.BitSet;
import java.util.HashSet;
import java.util.Set;

/**
 * Every transfer id an initiator has seen reach its terminal report, across all its peer sessions,
 * so that a report of an id already reported is told apart (a duplicate) from a report of an id the
 * session never submitted (a foreign id, reported to the wrong peer's poll).
 *
 * <p>Ids of one transport are unique and increase from a small number, so a bit set holds millions
 * of them in a few hundred kilobytes; ids beyond its range go to a hash set.
 *
 * <p><b>Thread safety:</b> thread-safe (one lock).
 */
public final class IdLedger {

    private final BitSet small = new BitSet();
    private final Set<Long> large = new HashSet<>();
    private long count;

    /**
     * Records {@code id} as reported.
     *
     * @return whether it was not recorded before
     */
    public synchronized boolean markReported(long id) {
        boolean fresh;
        if (id >= 0 && id < Integer.MAX_VALUE) {
            fresh = !small.get((int) id);
            small.set((int) id);
        } else {
            fresh = large.add(id);
        }
        if (fresh) {
            count++;
        }
        return fresh;
    }

    /** Whether {@code id} was reported. */
    public synchronized boolean isReported(long id) {
        return (id >= 0 && id < Integer.MAX_VALUE) ? small.get((int) id) : large.contains(id);
    }

    /** How many distinct ids were reported. */
    public synchronized long count() {
        return count;
    }
}
