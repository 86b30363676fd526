package io.blockxfer.holds;

import io.blockxfer.transport.DataTransport;

/**
 * What both sides of a {@link Holds} share: the transport, its geometry, the clock and the choices
 * its builder made.
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param tickNanos the interval of the holds' own ticks; 0 when ticks are manual
 * @param renewalsPerTtl how many renewals a holder sends per TTL
 * @param endOnPeerRemoval whether the holds of a peer the transport removed end at once
 * @param requireAuthenticated whether hold messages must be authenticated by the transport's key ring
 */
record Settings(DataTransport transport, String agent, int numBlocks, long blockLength, HoldClock clock,
        long tickNanos, int renewalsPerTtl, boolean endOnPeerRemoval, boolean requireAuthenticated) {
}
