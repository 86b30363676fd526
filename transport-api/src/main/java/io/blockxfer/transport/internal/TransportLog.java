package io.blockxfer.transport.internal;

/**
 * The logger every part of a managed transport writes to. It keeps the name of
 * {@code io.blockxfer.transport.spi.ManagedTransport}, so one logger setting covers the whole
 * transport however its parts are split.
 *
 * <p><b>Thread safety:</b> thread-safe (a constant).
 */
public final class TransportLog {

    public static final System.Logger LOG = System.getLogger("io.blockxfer.transport.spi.ManagedTransport");

    private TransportLog() {
    }
}
