package io.blockxfer.ucx;

import io.blockxfer.tck.ConformanceRules;
import io.blockxfer.tck.ProgressModeHarness;
import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import io.blockxfer.tck.TwoProcessHarness;
import io.blockxfer.transport.ProgressMode;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;

/**
 * The rules a target in another process changes ({@link ConformanceRules#acrossProcesses()}) on UCX
 * with each target in its own JVM process on this host (killing a target SIGKILLs it), the
 * initiator's polls driving its worker ({@link ProgressMode#POLLING_THREAD}). The whole kit in this
 * mode runs in one JVM ({@link UcxConformanceTest}); {@link UcxAcrossProcessesConformanceTest} runs
 * these rules in the other mode. Children get a private temporary directory, so the folder JUCX
 * extracts its JNI library into does not pile up in {@code /tmp} when a child is killed.
 */
// full tier: the rules a second process changes in the default progress mode; the fast tier runs them in the
// other mode (UcxAcrossProcessesConformanceTest) and the whole kit in this mode in one JVM (UcxConformanceTest)
@Tag("full")
class UcxTwoProcessConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return ProgressModeHarness.of(TwoProcessHarness.of(UcxTck.inJvm())
                .withJvmArgs(List.of("-Djava.io.tmpdir=" + ChildTemp.directory())), ProgressMode.POLLING_THREAD);
    }

    @Override
    protected Set<ConformanceRules> rules() {
        return ConformanceRules.acrossProcesses();
    }
}
