package io.blockxfer.nixl.internal;

/**
 * A {@code nixl_capi_*} call returned an error status. Internal: the engine turns it into a failed
 * transfer or a typed {@link io.blockxfer.transport.TransportException}.
 *
 * <p><b>Thread safety:</b> immutable after construction.
 */
public final class NixlException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String operation;
    private final int status;

    /** {@code operation} returned {@code status}. */
    public NixlException(String operation, int status) {
        super(NixlStatus.describe(operation, status));
        this.operation = operation;
        this.status = status;
    }

    /** The C function that failed. */
    public String operation() {
        return operation;
    }

    /** The {@code nixl_capi_status_t} it returned. */
    public int status() {
        return status;
    }
}
