package io.blockxfer.nixl;

import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;

/** The whole conformance kit against real NIXL in this JVM, on memory the kit allocates ({@code RegionSpec.wrap}). */
class NixlCallerMemoryConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return NixlTck.inJvm().withCallerMemory();
    }
}
