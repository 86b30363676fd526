package io.blockxfer.ucx;

import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TwoProcessHarness;
import io.blockxfer.tck.holds.HoldConformanceSuite;
import java.util.List;

/**
 * The holds kit over UCX: owner and holder in this JVM for every rule but H9, whose holder runs in
 * a child JVM and is SIGKILLed (with a private temporary directory, as the two-process suites give
 * their children). Every rule skips, with the reason, while the backend does not declare
 * notifications.
 */
class UcxHoldConformanceTest extends HoldConformanceSuite {

    @Override
    protected TckHarness harness() {
        return TwoProcessHarness.of(UcxTck.inJvm());
    }

    @Override
    protected List<String> holderJvmArgs() {
        return List.of("-Djava.io.tmpdir=" + ChildTemp.directory());
    }
}
