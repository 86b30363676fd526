package io.blockxfer.ucx;

import io.blockxfer.tck.ProgressModeHarness;
import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import io.blockxfer.tck.TwoProcessHarness;
import io.blockxfer.transport.ProgressMode;
import java.util.List;
import org.junit.jupiter.api.Tag;

/**
 * The UCX backend, certified by the whole kit with each target in its own JVM process and only the
 * initiator's progress thread driving its worker ({@link ProgressMode#BACKEND_THREAD}).
 */
// full tier: the whole kit in two processes, about 150 s; the fast tier runs the rules a second process
// changes in this placement and mode (UcxAcrossProcessesConformanceTest)
@Tag("full")
class UcxTwoProcessBackendThreadConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return ProgressModeHarness.of(TwoProcessHarness.of(UcxTck.inJvm())
                .withJvmArgs(List.of("-Djava.io.tmpdir=" + ChildTemp.directory())), ProgressMode.BACKEND_THREAD);
    }
}
