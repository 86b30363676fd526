package io.blockxfer.ucx;

import io.blockxfer.tck.ConformanceRules;
import io.blockxfer.tck.ProgressModeHarness;
import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import io.blockxfer.tck.TwoProcessHarness;
import io.blockxfer.transport.ProgressMode;
import java.util.List;
import java.util.Set;

/**
 * The fast tier's two-process run of UCX: the rules a target in another process changes
 * ({@link ConformanceRules#acrossProcesses()}), each target in its own JVM, in
 * {@link ProgressMode#BACKEND_THREAD}. {@link UcxConformanceTest} runs the whole kit in one JVM in
 * the default mode; the full tier runs it in this mode in one JVM
 * ({@link UcxBackendThreadConformanceTest}) and these rules in the default mode in two processes
 * ({@link UcxTwoProcessConformanceTest}).
 */
class UcxAcrossProcessesConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return ProgressModeHarness.of(TwoProcessHarness.of(UcxTck.inJvm())
                .withJvmArgs(List.of("-Djava.io.tmpdir=" + ChildTemp.directory())), ProgressMode.BACKEND_THREAD);
    }

    @Override
    protected Set<ConformanceRules> rules() {
        return ConformanceRules.acrossProcesses();
    }
}
