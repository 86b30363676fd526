package io.blockxfer.nixl.internal;

/**
 * NIXL's C library could not be found, loaded or accepted (wrong ABI). The message names the exact
 * cause, with the dynamic loader's {@code dlerror()} text where there is one, and where the
 * library was looked for.
 *
 * <p><b>Thread safety:</b> immutable after construction.
 */
public final class NixlLoadException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** A load failure with its cause in words. */
    public NixlLoadException(String message) {
        super(message);
    }

    /** A load failure with its cause in words and the underlying error. */
    public NixlLoadException(String message, Throwable cause) {
        super(message, cause);
    }
}
