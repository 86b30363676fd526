package io.blockxfer.tck;

/**
 * The loopback backend, certified by the whole kit in one JVM; it declares FAULT_INJECTION, so the
 * harness kills, stalls and injects faults through its LoopbackFaults by itself.
 */
class LoopbackConformanceTest extends TransportConformanceSuite {

    static InJvmHarness loopbackHarness() {
        return InJvmHarness.of("loopback");
    }

    @Override
    protected TckHarness harness() {
        return loopbackHarness();
    }
}
