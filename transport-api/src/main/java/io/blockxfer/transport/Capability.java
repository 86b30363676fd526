package io.blockxfer.transport;

/**
 * Optional abilities a backend declares through its provider. The conformance kit skips the rules
 * of an absent capability and checks the documented refusal instead.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public enum Capability {
    /** {@link DataTransport#readBlocks} is supported; without it, it throws
     *  {@link UnsupportedOperationException}. */
    READ,
    /** The region may be memory the caller supplies ({@link RegionSpec#wrap}). */
    CALLER_REGION,
    /** The backend can allocate the region itself ({@link RegionSpec#allocate}). */
    BACKEND_REGION,
    /** Initiator and target may live in different processes. */
    CROSS_PROCESS,
    /** Faults can be injected for tests (the loopback backend's {@code LoopbackFaults}). */
    FAULT_INJECTION,
    /** Per-transfer native telemetry is available through {@link DataTransport#feature}. */
    TELEMETRY,
    /**
     * Transfers may carry notifications and messages may be sent without one
     * ({@link DataTransport#writeBlocks(String, int[], int[], byte[])},
     * {@link DataTransport#sendNotification}); without it those throw
     * {@link UnsupportedOperationException}. Receiving is always possible (nothing arrives then).
     */
    NOTIFICATIONS
}
