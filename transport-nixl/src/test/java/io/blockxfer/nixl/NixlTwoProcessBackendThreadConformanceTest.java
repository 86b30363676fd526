package io.blockxfer.nixl;

import io.blockxfer.tck.ConformanceRules;
import io.blockxfer.tck.ProgressModeHarness;
import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import io.blockxfer.tck.TwoProcessHarness;
import io.blockxfer.transport.ProgressMode;
import java.util.Set;
import org.junit.jupiter.api.Tag;

/**
 * The rules a target in another process changes ({@link ConformanceRules#acrossProcesses()}) against
 * real NIXL, each target in its own JVM (killed with SIGKILL), in
 * {@link ProgressMode#BACKEND_THREAD}. The whole kit in this mode runs in one JVM
 * ({@link NixlBackendThreadConformanceTest}); {@link NixlAcrossProcessesConformanceTest} runs these
 * rules in the default mode.
 */
// full tier: the rules a second process changes in the backend-thread mode; the fast tier runs them in the
// default mode (NixlAcrossProcessesConformanceTest) and the whole kit in this mode in one JVM
// (NixlBackendThreadConformanceTest)
@Tag("full")
class NixlTwoProcessBackendThreadConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return ProgressModeHarness.of(TwoProcessHarness.of(NixlTck.inJvm()), ProgressMode.BACKEND_THREAD);
    }

    @Override
    protected Set<ConformanceRules> rules() {
        return ConformanceRules.acrossProcesses();
    }
}
