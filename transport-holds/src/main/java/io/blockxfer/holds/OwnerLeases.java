package io.blockxfer.holds;

import java.util.HashMap;
import java.util.Map;

/**
 * A holder's leases from one owner and its renewal rounds: each round's number and when it was
 * sent, so an answer is measured from its own round's sending, by this process's clock. The last
 * {@link #ROUNDS} rounds are remembered; an answer to an older one is ignored (the next round's
 * answer covers more anyway).
 *
 * <p><b>Thread safety:</b> guarded by the holder side's lock.
 */
final class OwnerLeases {

    static final int ROUNDS = 16;

    final String owner;
    final Map<Long, Lease> leases = new HashMap<>();
    private long nextRound = 1;
    private final long[] roundNo = new long[ROUNDS];
    private final long[] roundAt = new long[ROUNDS];

    OwnerLeases(String owner) {
        this.owner = owner;
    }

    /** Starts a round sent at {@code now}; returns its number. */
    long newRound(long now) {
        long r = nextRound++;
        int slot = (int) (r % ROUNDS);
        roundNo[slot] = r;
        roundAt[slot] = now;
        return r;
    }

    /** When round {@code r} was sent, or {@link Lease#NONE} if it is not one of the last rounds. */
    long sentAt(long r) {
        int slot = (int) Math.floorMod(r, (long) ROUNDS);
        return r > 0 && roundNo[slot] == r ? roundAt[slot] : Lease.NONE;
    }
}
