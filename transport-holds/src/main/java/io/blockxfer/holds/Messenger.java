package io.blockxfer.holds;

import io.blockxfer.transport.DataTransport;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Hands hold messages to the transport as notifications and counts those it did not take: a peer
 * no longer registered, a transport closed. Delivery is never confirmed: the protocol's renewals,
 * answers and expiries make up for a lost message.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
final class Messenger {

    private static final System.Logger LOG = System.getLogger(Holds.class.getName());

    private final DataTransport transport;
    final LongAdder failures = new LongAdder();
    private final AtomicBoolean loggedClosed = new AtomicBoolean();

    Messenger(DataTransport transport) {
        this.transport = transport;
    }

    /** Sends {@code payload} to {@code peer}; false when the transport did not take it. */
    boolean send(String peer, byte[] payload) {
        try {
            if (transport.sendNotification(peer, payload)) {
                return true;
            }
        } catch (IllegalStateException closed) {
            if (loggedClosed.compareAndSet(false, true)) {
                LOG.log(Level.DEBUG, "holds: the transport closed; hold messages are no longer sent: " + closed);
            }
        }
        failures.increment();
        return false;
    }
}
