package io.blockxfer.tck.holds;

import io.blockxfer.tck.InJvmHarness;
import io.blockxfer.tck.TckHarness;

/** The holds kit over the loopback backend, owner and holder in this JVM. */
class LoopbackHoldConformanceTest extends HoldConformanceSuite {

    @Override
    protected TckHarness harness() {
        return InJvmHarness.of("loopback");
    }
}
