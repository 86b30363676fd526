package io.blockxfer.holds;

/**
 * What a {@link Holds} did since it was built, as {@link Holds#stats()} saw it: its holds as an owner,
 * its leases as a holder, and the protocol messages between them.
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param liveHolds holds this owner has now (ended ones not counted)
 * @param heldBlocks blocks those holds cover (a block lent to two peers counts twice)
 * @param heldBytes bytes those holds cover
 * @param created holds created
 * @param released holds ended {@link HoldEnd.Reason#RELEASED}
 * @param abandoned holds ended {@link HoldEnd.Reason#ABANDONED}
 * @param expired holds ended {@link HoldEnd.Reason#EXPIRED}
 * @param cancelled holds ended {@link HoldEnd.Reason#CANCELLED}
 * @param peerRemoved holds ended {@link HoldEnd.Reason#PEER_REMOVED}
 * @param closed holds ended {@link HoldEnd.Reason#CLOSED}
 * @param renewalsGranted renewals of live holds this owner granted
 * @param renewalsRefused renewals and releases this owner refused: of holds that ended, that it does
 *     not know, or that belong to another peer than the sender
 * @param messagesRefused hold messages refused whole: malformed, or unauthenticated where the
 *     transport has a key ring
 * @param openLeases leases this holder has now that have not ended
 * @param accepted leases accepted
 * @param renewalsSent renewals this holder asked for (one per lease per round)
 * @param renewalMessages notifications those renewals took
 * @param renewalBytes payload bytes of those notifications
 * @param renewalsConfirmed renewals the owners confirmed
 * @param transfersRefused transfers under a lease refused at submit or reported failed because the
 *     lease no longer covered them
 * @param sendFailures hold messages the transport did not take (the peer not registered, the
 *     transport closed)
 */
public record HoldStats(long liveHolds, long heldBlocks, long heldBytes, long created, long released,
        long abandoned, long expired, long cancelled, long peerRemoved, long closed, long renewalsGranted,
        long renewalsRefused, long messagesRefused, long openLeases, long accepted, long renewalsSent,
        long renewalMessages, long renewalBytes, long renewalsConfirmed, long transfersRefused, long sendFailures) {

    /** How many holds ended, for every reason. */
    public long ended() {
        return released + abandoned + expired + cancelled + peerRemoved + closed;
    }
}
