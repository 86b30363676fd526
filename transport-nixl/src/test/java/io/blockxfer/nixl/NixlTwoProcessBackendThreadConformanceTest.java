package io.blockxfer.nixl;

import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import io.blockxfer.tck.TwoProcessHarness;
import org.junit.jupiter.api.Tag;

/** The whole conformance kit against real NIXL, each target in its own JVM (killed with SIGKILL). */
// full tier: the whole kit in two processes, about 250 s; the fast tier runs the rules a second process
// changes in this placement (NixlAcrossProcessesConformanceTest)
@Tag("full")
class NixlTwoProcessConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return TwoProcessHarness.of(NixlTck.inJvm());
    }
}
