package io.blockxfer.tck;

/** The loopback backend, certified by the whole kit on memory the kit allocates ({@code RegionSpec.wrap}). */
class LoopbackCallerMemoryConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return LoopbackConformanceTest.loopbackHarness().withCallerMemory();
    }
}
