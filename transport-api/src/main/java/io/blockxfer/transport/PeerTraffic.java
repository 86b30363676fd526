package io.blockxfer.transport;

/**
 * What the transfers of one registered peer are doing, as {@link DataTransport#traffic} saw them:
 * how many were submitted to its registration and how many of those have not ended yet. A peer is
 * idle when {@code inFlight} is 0 and {@code submitted} has not moved since the caller last looked;
 * removing it then fails nothing.
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param submitted the transfers submitted to the peer since it was last added: every submit that
 *     returned an id, asynchronous ones included, also those the backend refused natively (they are
 *     reported failed); a new registration of the peer starts again from 0
 * @param inFlight of those, how many have not ended yet: neither done nor failed, so removing the
 *     peer now would fail them. Whether or not a poll found it ended: the backend's status of each
 *     transfer not yet reported is read, so a transfer that ended and was never polled no longer
 *     counts (its report still comes, once, from the next poll). A transfer cancelled in
 *     {@link CancelMode#IMMEDIATE} mode no longer counts; one returned by a
 *     {@link CancelMode#WAIT} cancel counts until it ends. Never more than {@code submitted}.
 */
public record PeerTraffic(long submitted, int inFlight) {

    /**
     * Checks the counts.
     *
     * @throws IllegalArgumentException if a count is negative, or more are in flight than were
     *     submitted
     */
    public PeerTraffic {
        if (submitted < 0 || inFlight < 0) {
            throw new IllegalArgumentException("negative traffic count: submitted " + submitted + ", in flight "
                    + inFlight);
        }
        if (inFlight > submitted) {
            throw new IllegalArgumentException("more transfers in flight (" + inFlight + ") than submitted ("
                    + submitted + ")");
        }
    }
}
