package io.blockxfer.holds;

import java.util.concurrent.CompletableFuture;

/**
 * A transfer under a lease that ended before the lease was confirmed to cover its end: it waits
 * for the owner's answer to a renewal sent before it ended.
 *
 * <p><b>Thread safety:</b> guarded by the holder side's lock.
 *
 * @param result the caller's future
 * @param endedAt when the holder learnt that the transfer ended, by its clock
 * @param carriedRelease whether the transfer carried the lease's release
 */
record Parked(CompletableFuture<Void> result, long endedAt, boolean carriedRelease) {
}
