package io.blockxfer.directory;

import org.jspecify.annotations.Nullable;

/**
 * A directory value is not a well-formed {@link MemberEntry}: oversized, truncated, of an unknown
 * version or format, or with a wrong checksum. Directory values come from whoever can write to the
 * directory, so this is the only exception {@link MemberEntry#decode} throws for bad bytes besides
 * the key ring's refusals.
 *
 * <p><b>Thread safety:</b> immutable after construction.
 */
public class MalformedEntryException extends DirectoryException {
    private static final long serialVersionUID = 1L;

    /** Names what is wrong with the bytes. */
    public MalformedEntryException(String message) {
        super(message);
    }

    /** Names what is wrong with the bytes, with the underlying cause. */
    public MalformedEntryException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
