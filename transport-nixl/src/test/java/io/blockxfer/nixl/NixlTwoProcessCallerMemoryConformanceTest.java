package io.blockxfer.nixl;

import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import io.blockxfer.tck.TwoProcessHarness;
import org.junit.jupiter.api.Tag;

/** The whole conformance kit against real NIXL, targets in child JVMs, every region in caller memory. */
// full tier: the two-process placement in caller memory; the fast tier certifies two processes in backend
// memory, for the rules a second process changes (NixlAcrossProcessesConformanceTest)
@Tag("full")
class NixlTwoProcessCallerMemoryConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return TwoProcessHarness.of(NixlTck.inJvm().withCallerMemory());
    }
}
