package io.blockxfer.holds;

import java.util.HashMap;
import java.util.Map;

/**
 * A holder's leases from one owner and the numbers of its renewal rounds to it. Each lease keeps
 * the rounds it was last sent in and when ({@link Lease#sentAt(long)}), so an answer is measured
 * from its own round's sending, by this process's clock, however many rounds (a burst of accepts)
 * went out meanwhile.
 *
 * <p><b>Thread safety:</b> guarded by the holder side's lock.
 */
final class OwnerLeases {

    final String owner;
    final Map<Long, Lease> leases = new HashMap<>();
    private long nextRound = 1;

    OwnerLeases(String owner) {
        this.owner = owner;
    }

    /** The number of a new round. */
    long newRound() {
        return nextRound++;
    }
}
