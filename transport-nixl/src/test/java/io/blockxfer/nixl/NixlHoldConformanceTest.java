package io.blockxfer.nixl;

import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TwoProcessHarness;
import io.blockxfer.tck.holds.HoldConformanceSuite;

/**
 * The holds kit over NIXL: owner and holder in this JVM for every rule but H9, whose holder runs in
 * a child JVM and is SIGKILLed. Every rule skips, with the reason, while the backend does not
 * declare notifications.
 */
class NixlHoldConformanceTest extends HoldConformanceSuite {

    @Override
    protected TckHarness harness() {
        return TwoProcessHarness.of(NixlTck.inJvm());
    }
}
