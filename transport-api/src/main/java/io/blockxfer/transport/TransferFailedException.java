package io.blockxfer.transport;

/**
 * Why a {@link TransferFuture} completed exceptionally: its transfer ended {@code failed} (what a
 * poll would report as failed), or it was never submitted because its peer is not registered
 * ({@link #transferId()} is then {@link DataTransport#NOT_SUBMITTED}).
 *
 * <p><b>Thread safety:</b> immutable after construction, like any exception.
 */
public class TransferFailedException extends TransportException {
    private static final long serialVersionUID = 1L;

    private final long transferId;
    private final String peerId;

    /**
     * @param transferId the failed transfer's id, or {@link DataTransport#NOT_SUBMITTED}
     * @param peerId the peer it was submitted to
     * @param why what ended it, e.g. "missed its deadline of 10000 ms"
     */
    public TransferFailedException(long transferId, String peerId, String why) {
        super(transferId == DataTransport.NOT_SUBMITTED
                ? "transfer to peer '" + peerId + "' not submitted: " + why
                : "transfer " + transferId + " to peer '" + peerId + "' failed: " + why);
        this.transferId = transferId;
        this.peerId = peerId;
    }

    /** The failed transfer's id; {@link DataTransport#NOT_SUBMITTED} if it was never submitted. */
    public long transferId() {
        return transferId;
    }

    /** The peer the transfer was submitted to. */
    public String peerId() {
        return peerId;
    }
}
