package io.blockxfer.tck;

import java.util.Set;
import org.junit.jupiter.api.Tag;

/**
 * The rules whose outcome depends on where the regions' memory comes from
 * ({@link ConformanceRules#regionMemory()}) on loopback, in memory the kit allocates
 * ({@code RegionSpec.wrap}); loopback copies the same way whoever allocated the region, and the whole
 * kit runs in its own memory ({@link LoopbackConformanceTest}, {@link LoopbackBackendThreadConformanceTest}).
 */
// full tier: the caller-memory placement; the fast tier certifies loopback in its own memory
// (LoopbackConformanceTest), and BrokenBackendsAreCaughtTest runs each rule's working and broken variants
@Tag("full")
class LoopbackCallerMemoryConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return LoopbackConformanceTest.loopbackHarness().withCallerMemory();
    }

    @Override
    protected Set<ConformanceRules> rules() {
        return ConformanceRules.regionMemory();
    }
}
