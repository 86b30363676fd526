package io.blockxfer.transport;

/**
 * What a transport did with notifications since it opened, as
 * {@link DataTransport#notificationStats()} saw it. Every notification that reached the transport
 * is counted exactly once as refused, dropped, delivered, still queued, or discarded at close.
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param sent notifications this transport handed to its backend: with transfers (counted at
 *     submit) and on their own
 * @param received notifications that arrived, passed every check and entered the queue
 * @param delivered of those, how many a poll, a wait or a subscriber took
 * @param queued of those, how many wait in the queue now
 * @param refused notifications that arrived and failed a check (malformed, addressed to another
 *     transport, unsigned or forged in a deployment with a key ring, replayed, stale); never
 *     delivered
 * @param dropped notifications that passed every check but found the queue full
 *     ({@link TransportConfig#notificationQueueCapacity()}); the next delivered notification of
 *     the same sender says how many of its own were dropped ({@link Notification#droppedBefore()})
 * @param discarded notifications still queued when the transport closed
 */
public record NotificationStats(long sent, long received, long delivered, long queued, long refused, long dropped,
        long discarded) {

    /**
     * Checks the counts.
     *
     * @throws IllegalArgumentException if a count is negative
     */
    public NotificationStats {
        if (sent < 0 || received < 0 || delivered < 0 || queued < 0 || refused < 0 || dropped < 0 || discarded < 0) {
            throw new IllegalArgumentException("negative notification count");
        }
    }
}
