package io.blockxfer.tck;

import io.blockxfer.transport.ProgressMode;
import java.time.Duration;

/**
 * The loopback backend, certified by the whole kit in one JVM in its default progress mode
 * ({@link ProgressMode#AUTO}, which is {@link ProgressMode#POLLING_THREAD} for loopback); it
 * declares FAULT_INJECTION, so the harness kills, stalls and injects faults through its
 * LoopbackFaults by itself.
 */
class LoopbackConformanceTest extends TransportConformanceSuite {

    /**
     * What loopback promises: polls drive the copies in the polling-thread mode (its fallback
     * worker looks in after 200 us, so the bound cannot tell the two apart there; it catches a
     * slower fallback); its submit queue holds 65,536 transfers (CopyWorker). A submit finding it
     * full waits for at most the transfer timeout; the kit checks the tighter 5 s (its own configs
     * set transfer timeouts of 6 s and more).
     */
    static final TckDeclarations DECLARATIONS = TckDeclarations.none()
            .progressModes(ProgressMode.POLLING_THREAD, ProgressMode.BACKEND_THREAD)
            .pollingThreadBound(Duration.ofMillis(20))
            .queueCapacity(1 << 16, Duration.ofSeconds(5));

    static InJvmHarness loopbackHarness() {
        return InJvmHarness.of("loopback").withDeclarations(DECLARATIONS);
    }

    @Override
    protected TckHarness harness() {
        return loopbackHarness();
    }
}
