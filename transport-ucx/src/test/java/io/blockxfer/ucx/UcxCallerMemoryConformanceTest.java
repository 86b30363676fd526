package io.blockxfer.ucx;

import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import org.junit.jupiter.api.Tag;

/** The UCX backend, certified by the whole kit in this JVM on memory the kit allocates ({@code RegionSpec.wrap}). */
// full tier: the caller-memory placement in this JVM; the fast tier certifies UCX in backend memory, in this
// JVM (UcxConformanceTest) and in two processes (UcxAcrossProcessesConformanceTest)
@Tag("full")
class UcxCallerMemoryConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return UcxTck.inJvm().withCallerMemory();
    }
}
