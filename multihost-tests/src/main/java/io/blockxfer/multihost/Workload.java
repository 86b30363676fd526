package io.blockxfer.multihost;

import java.time.Duration;

/**
 * The shape of the stream a {@link PeerSession} drives against one peer.
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param maxInflight transfers in flight at once, at most
 * @param maxBlocksPerTransfer blocks in one transfer, at most (each transfer picks 1 to this many)
 * @param readShare the share of new random transfers that are READs, 0 to 1; every completed WRITE
 *     is followed by a READ of the same blocks besides
 * @param progressInterval how often the session emits a {@code PROGRESS} event
 * @param drain how long a stopping session waits for its transfers in flight before it counts the
 *     rest as lost
 */
public record Workload(int maxInflight, int maxBlocksPerTransfer, double readShare, Duration progressInterval,
        Duration drain) {

    /** Checks the ranges. */
    public Workload {
        if (maxInflight < 1 || maxBlocksPerTransfer < 1) {
            throw new IllegalArgumentException("maxInflight and maxBlocksPerTransfer must be positive");
        }
        if (!(readShare >= 0 && readShare <= 1)) {
            throw new IllegalArgumentException("readShare must be within 0..1: " + readShare);
        }
    }

    /** The local blocks one session needs so that quarantine after one fault still leaves a full window. */
    public int localBlocksPerPeer() {
        return 2 * maxInflight * maxBlocksPerTransfer;
    }
}
