/**
 * Blocks held for a peer ({@link io.blockxfer.holds.Holds}): an owner lends blocks of its region to
 * a peer under a lease the peer renews and ends through the transport's notifications; a dead or
 * silent peer's lease expires within its TTL, and no block goes back to its owner while a live
 * holder's lease runs. Works over any {@link io.blockxfer.transport.DataTransport} that carries
 * notifications; depends on the transport API only.
 */
module io.blockxfer.transport.holds {
    requires transitive io.blockxfer.transport;
    requires jdk.jfr;
    requires static org.jspecify;

    exports io.blockxfer.holds;
}
