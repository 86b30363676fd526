package io.blockxfer.nixl;

import java.util.List;
import java.util.Optional;

/**
 * NIXL's per-transfer telemetry of a {@code nixl} transport, through
 * {@code transport.feature(NixlTelemetry.class)}: post and transfer durations, bytes and
 * descriptor counts of the last {@link #capacity()} transfers that completed, and running totals.
 *
 * <p>Recording allocates nothing: each completed transfer costs one
 * {@code nixl_capi_get_xfer_telemetry} call and a few array stores. When several threads finish
 * transfers at the same instant, a record may be skipped rather than waited for; {@link Totals#skipped()}
 * counts those. Only transfers that completed successfully are recorded. Capture is on by default
 * and is turned off with the option {@link NixlOptions#TELEMETRY} {@code =false}; then this feature
 * reports nothing.
 *
 * <p>The same measurements also reach a configured
 * {@link io.blockxfer.transport.TransportObserver#nativeTelemetry}, so metrics (for instance
 * {@code transport-micrometer}) see them without polling this feature.
 *
 * <p><b>Thread safety:</b> thread-safe; queries return snapshots.
 */
public interface NixlTelemetry {

    /** Whether NIXL captures telemetry for this transport. */
    boolean capturing();

    /** How many records are kept. */
    int capacity();

    /** Up to {@code max} of the most recent records, newest first. */
    List<NixlTransferTelemetry> recent(int max);

    /** The record of transfer {@code transferId}, if it is still among the kept records. */
    Optional<NixlTransferTelemetry> find(long transferId);

    /** The most recent record, if any. */
    default Optional<NixlTransferTelemetry> last() {
        List<NixlTransferTelemetry> r = recent(1);
        return r.isEmpty() ? Optional.empty() : Optional.of(r.getFirst());
    }

    /** Running totals since the transport opened (or since {@link #reset()}). */
    Totals totals();

    /** Forgets the records and zeroes the totals. */
    void reset();

    /**
     * Running totals of recorded transfers.
     *
     * <p><b>Thread safety:</b> immutable.
     *
     * @param transfers transfers recorded
     * @param bytes bytes they moved
     * @param descriptors descriptors they used
     * @param postMicros the sum of their post durations
     * @param transferMicros the sum of their transfer durations
     * @param maxTransferMicros the longest transfer
     * @param skipped records skipped because another thread was recording
     */
    record Totals(long transfers, long bytes, long descriptors, long postMicros, long transferMicros,
            long maxTransferMicros, long skipped) {

        /** The mean transfer duration in microseconds, or 0. */
        public double meanTransferMicros() {
            return transfers == 0 ? 0 : (double) transferMicros / transfers;
        }

        /** The mean post duration in microseconds, or 0. */
        public double meanPostMicros() {
            return transfers == 0 ? 0 : (double) postMicros / transfers;
        }
    }
}
