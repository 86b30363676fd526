package io.blockxfer.directory;

/**
 * A running {@link Directory#watch}.
 *
 * <p><b>Thread safety:</b> implementations are thread-safe.
 */
public interface DirectoryWatch extends AutoCloseable {

    /**
     * The revision of the last snapshot or event delivered to the listener; 0 before the
     * snapshot.
     */
    long revision();

    /**
     * Stops the watch. Once it returns, no callback of this watch starts (one running on the
     * directory's thread finishes; close from inside a callback returns at once). Idempotent.
     */
    @Override
    void close();
}
