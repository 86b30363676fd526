package io.blockxfer.directory;

import io.blockxfer.transport.TransportException;
import org.jspecify.annotations.Nullable;

/**
 * The root of the directory's typed exceptions.
 *
 * <p><b>Thread safety:</b> immutable after construction.
 */
public class DirectoryException extends TransportException {
    private static final long serialVersionUID = 1L;

    /** An exception with a message that names the problem. */
    public DirectoryException(String message) {
        super(message);
    }

    /** An exception with a message and its cause. */
    public DirectoryException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
