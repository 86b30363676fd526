package io.blockxfer.nixl;

import io.blockxfer.tck.ConformanceRules;
import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import java.util.Set;
import org.junit.jupiter.api.Tag;

/**
 * The rules whose outcome depends on where the regions' memory comes from
 * ({@link ConformanceRules#regionMemory()}) against real NIXL in this JVM, in memory the kit allocates
 * ({@code RegionSpec.wrap}): NIXL registers the caller's memory as it registers its own, on the same
 * engine path, and the whole kit runs in backend memory in both modes ({@link NixlConformanceTest},
 * {@link NixlBackendThreadConformanceTest}).
 */
// full tier: the caller-memory placement in this JVM; the fast tier certifies NIXL in backend memory, in this
// JVM (NixlBackendThreadConformanceTest) and in two processes (NixlAcrossProcessesConformanceTest)
@Tag("full")
class NixlCallerMemoryConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return NixlTck.inJvm().withCallerMemory();
    }

    @Override
    protected Set<ConformanceRules> rules() {
        return ConformanceRules.regionMemory();
    }
}
