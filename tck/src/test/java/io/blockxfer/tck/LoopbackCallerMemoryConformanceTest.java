package io.blockxfer.tck;

import org.junit.jupiter.api.Tag;

/** The loopback backend, certified by the whole kit on memory the kit allocates ({@code RegionSpec.wrap}). */
// full tier: the caller-memory placement; the fast tier certifies loopback in its own memory
// (LoopbackConformanceTest), and BrokenBackendsAreCaughtTest runs each rule's working and broken variants
@Tag("full")
class LoopbackCallerMemoryConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return LoopbackConformanceTest.loopbackHarness().withCallerMemory();
    }
}
