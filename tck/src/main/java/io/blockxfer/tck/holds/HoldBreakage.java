package io.blockxfer.tck.holds;

import io.blockxfer.holds.HoldClock;
import io.blockxfer.holds.HoldEnd;
import io.blockxfer.holds.Holds;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.NotificationHandler;
import java.util.function.Consumer;

/**
 * Where the kit's own tests break the holds a rule runs, on purpose, to prove the rule can fail:
 * the transports the holds are given, their builders, the feeds of notifications into them, and
 * the sink of the owner's ends. Every method leaves things as they are by default.
 *
 * <p><b>Thread safety:</b> implementations are called from the rule's thread and, for feeds and
 * transports, from the threads that use them; they must be thread-safe there.
 */
interface HoldBreakage {

    /** No breakage. */
    HoldBreakage NONE = new HoldBreakage() { };

    /** The transport the owner's holds are given. */
    default DataTransport ownerTransport(DataTransport transport) {
        return transport;
    }

    /** The transport the holder's holds are given. */
    default DataTransport holderTransport(DataTransport transport) {
        return transport;
    }

    /** The owner's builder, given the clock the rule moves. */
    default Holds.Builder owner(Holds.Builder builder, HoldClock clock) {
        return builder;
    }

    /** The holder's builder, given the clock the rule moves. */
    default Holds.Builder holder(Holds.Builder builder, HoldClock clock) {
        return builder;
    }

    /** What takes the owner's notifications: {@code feed} offers them to {@code owner}. */
    default NotificationHandler ownerFeed(NotificationHandler feed, DataTransport ownerTransport) {
        return feed;
    }

    /** What takes the holder's notifications: {@code feed} offers them to its holds. */
    default NotificationHandler holderFeed(NotificationHandler feed, DataTransport holderTransport) {
        return feed;
    }

    /** Where the owner's ends go. */
    default Consumer<HoldEnd> ends(Consumer<HoldEnd> sink) {
        return sink;
    }
}
