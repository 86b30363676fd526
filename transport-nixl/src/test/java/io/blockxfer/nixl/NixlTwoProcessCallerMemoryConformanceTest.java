package io.blockxfer.nixl;

import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import io.blockxfer.tck.TwoProcessHarness;

/** The whole conformance kit against real NIXL, targets in child JVMs, every region in caller memory. */
class NixlTwoProcessCallerMemoryConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return TwoProcessHarness.of(NixlTck.inJvm().withCallerMemory());
    }
}
