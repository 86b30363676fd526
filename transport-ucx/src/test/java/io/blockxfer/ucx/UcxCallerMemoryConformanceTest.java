package io.blockxfer.ucx;

import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;

/** The UCX backend, certified by the whole kit in this JVM on memory the kit allocates ({@code RegionSpec.wrap}). */
class UcxCallerMemoryConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return UcxTck.inJvm().withCallerMemory();
    }
}
