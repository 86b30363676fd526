package io.blockxfer.nixl;

import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;

/** The whole conformance kit against real NIXL, initiator and targets in this JVM. */
class NixlConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return NixlTck.inJvm();
    }
}
