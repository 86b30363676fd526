package io.blockxfer.nixl;

import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import org.junit.jupiter.api.Tag;

/** The whole conformance kit against real NIXL in this JVM, on memory the kit allocates ({@code RegionSpec.wrap}). */
// full tier: the caller-memory placement in this JVM; the fast tier certifies NIXL in backend memory, in this
// JVM (NixlBackendThreadConformanceTest) and in two processes (NixlAcrossProcessesConformanceTest)
@Tag("full")
class NixlCallerMemoryConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return NixlTck.inJvm().withCallerMemory();
    }
}
