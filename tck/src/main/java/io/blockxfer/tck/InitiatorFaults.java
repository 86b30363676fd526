package io.blockxfer.tck;

import java.time.Duration;

/**
 * Faults the kit injects into an initiator, where its harness can (see
 * {@link TckHarness#initiatorFaults}): they hold windows open that a correct backend must handle,
 * so the rules that need them are deterministic. The loopback backend's {@code LoopbackFaults}
 * provide them for every backend that declares
 * {@link io.blockxfer.transport.Capability#FAULT_INJECTION}.
 *
 * <p><b>Thread safety:</b> implementations must be thread-safe.
 */
public interface InitiatorFaults {

    /** The next {@code count} submits fail natively: each still returns an id, reported failed. */
    void failNextSubmits(int count);

    /**
     * Transfers submitted from now on move their bytes at once but become terminal no earlier
     * than {@code delay} after their submit; {@link Duration#ZERO} turns the delay off.
     */
    void delayCompletions(Duration delay);
}
