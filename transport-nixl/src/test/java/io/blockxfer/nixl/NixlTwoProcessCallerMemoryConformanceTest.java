package io.blockxfer.nixl;

import io.blockxfer.tck.ConformanceRules;
import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import io.blockxfer.tck.TwoProcessHarness;
import java.util.Set;
import org.junit.jupiter.api.Tag;

/**
 * The rules a target in another process changes ({@link ConformanceRules#acrossProcesses()}) against
 * real NIXL, targets in child JVMs, every region in caller memory: the bytes of caller memory across
 * address spaces. The whole kit runs in caller memory in one JVM ({@link NixlCallerMemoryConformanceTest}).
 */
// full tier: the two-process placement in caller memory; the fast tier certifies two processes in backend
// memory, for the rules a second process changes (NixlAcrossProcessesConformanceTest), and the full tier the
// whole kit in caller memory in one JVM (NixlCallerMemoryConformanceTest)
@Tag("full")
class NixlTwoProcessCallerMemoryConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return TwoProcessHarness.of(NixlTck.inJvm().withCallerMemory());
    }

    @Override
    protected Set<ConformanceRules> rules() {
        return ConformanceRules.acrossProcesses();
    }
}
