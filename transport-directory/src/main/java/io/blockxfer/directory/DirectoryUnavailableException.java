package io.blockxfer.directory;

import org.jspecify.annotations.Nullable;

/**
 * The directory could not be reached within its {@link Directory#operationTimeout()}. The message
 * names the directory's endpoints and what was being done.
 *
 * <p><b>Thread safety:</b> immutable after construction.
 */
public class DirectoryUnavailableException extends DirectoryException {
    private static final long serialVersionUID = 1L;

    /** Names the endpoints, the operation and how long it waited. */
    public DirectoryUnavailableException(String message) {
        super(message);
    }

    /** Names the endpoints, the operation and how long it waited, with the client library's error. */
    public DirectoryUnavailableException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
