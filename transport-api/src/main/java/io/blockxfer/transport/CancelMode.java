package io.blockxfer.transport;

/**
 * How {@link DataTransport#cancel(long[], CancelMode)} treats transfers still in flight.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public enum CancelMode {
    /** Stop reporting the ids now; the transport keeps any native handle until it is terminal. */
    IMMEDIATE,
    /** Release terminal transfers silently and return the ids still in flight. */
    WAIT
}
