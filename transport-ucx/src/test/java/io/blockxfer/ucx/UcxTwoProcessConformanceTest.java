package io.blockxfer.ucx;

import io.blockxfer.tck.ProgressModeHarness;
import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import io.blockxfer.tck.TwoProcessHarness;
import io.blockxfer.transport.ProgressMode;
import java.util.List;
import org.junit.jupiter.api.Tag;

/**
 * The UCX backend, certified by the whole kit with each target in its own JVM process on this host
 * (killing a target SIGKILLs it), the initiator's polls driving its worker
 * ({@link ProgressMode#POLLING_THREAD}). Children get a private temporary directory, so the folder
 * JUCX extracts its JNI library into does not pile up in {@code /tmp} when a child is killed.
 */
// full tier: the default progress mode in two processes; the fast tier certifies the default mode in one JVM
// (UcxConformanceTest) and the rules a second process changes, in the other mode (UcxAcrossProcessesConformanceTest)
@Tag("full")
class UcxTwoProcessConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return ProgressModeHarness.of(TwoProcessHarness.of(UcxTck.inJvm())
                .withJvmArgs(List.of("-Djava.io.tmpdir=" + ChildTemp.directory())), ProgressMode.POLLING_THREAD);
    }
}
