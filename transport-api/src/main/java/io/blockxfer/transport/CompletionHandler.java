package io.blockxfer.transport;

/**
 * Receives terminal transfers from {@link DataTransport#poll(String, CompletionHandler)}.
 *
 * <p><b>Thread safety:</b> called on the polling thread, one call at a time per poll; the
 * handler may call back into the transport.
 */
@FunctionalInterface
public interface CompletionHandler {

    /**
     * One transfer reached its terminal state.
     *
     * @param transferId the id its submit returned
     * @param success {@code true} for done, {@code false} for failed
     */
    void onTerminal(long transferId, boolean success);
}
