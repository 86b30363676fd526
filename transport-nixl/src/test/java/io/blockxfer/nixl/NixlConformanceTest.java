package io.blockxfer.nixl;

import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import org.junit.jupiter.api.Tag;

/** The whole conformance kit against real NIXL, initiator and targets in this JVM. */
// full tier: the default progress mode in this JVM; the fast tier certifies the other mode in this JVM
// (NixlBackendThreadConformanceTest) and the rules a second process changes in the default mode
// (NixlAcrossProcessesConformanceTest)
@Tag("full")
class NixlConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return NixlTck.inJvm();
    }
}
