package io.blockxfer.nixl;

import io.blockxfer.tck.ConformanceRules;
import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import io.blockxfer.tck.TwoProcessHarness;
import java.util.Set;

/**
 * The fast tier's two-process run of NIXL: the rules a target in another process changes
 * ({@link ConformanceRules#acrossProcesses()}), each target in its own JVM (killed with SIGKILL),
 * in the default progress mode. {@link NixlBackendThreadConformanceTest} runs the whole kit in one
 * JVM in the other mode; the full tier runs the whole kit in this mode in one JVM
 * ({@link NixlConformanceTest}) and these rules in the other mode in two processes
 * ({@link NixlTwoProcessBackendThreadConformanceTest}).
 */
class NixlAcrossProcessesConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return TwoProcessHarness.of(NixlTck.inJvm());
    }

    @Override
    protected Set<ConformanceRules> rules() {
        return ConformanceRules.acrossProcesses();
    }
}
