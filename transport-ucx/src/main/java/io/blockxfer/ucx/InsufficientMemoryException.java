package io.blockxfer.ucx;

import io.blockxfer.transport.TransportException;

/**
 * A region that this host cannot hold: refused before UCX maps anything, instead of letting the
 * allocation exhaust the machine (the kernel's out-of-memory killer) or fill {@code /dev/shm}. The
 * message names the size asked for and what the host has.
 *
 * <p><b>Thread safety:</b> immutable after construction, like any exception.
 */
public class InsufficientMemoryException extends TransportException {
    private static final long serialVersionUID = 1L;

    /** An exception with a message that names the size and what is available. */
    public InsufficientMemoryException(String message) {
        super(message);
    }
}
