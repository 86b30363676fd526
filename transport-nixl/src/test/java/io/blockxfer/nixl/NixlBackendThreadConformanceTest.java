package io.blockxfer.nixl;

import io.blockxfer.tck.ProgressModeHarness;
import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import io.blockxfer.transport.ProgressMode;

/**
 * The whole conformance kit against real NIXL in this JVM, with NIXL's progress thread on its
 * backend-thread rhythm ({@link ProgressMode#BACKEND_THREAD}: a look every millisecond, UCX's
 * spinlock); {@link NixlConformanceTest} certifies the default, the polling-thread mode.
 */
class NixlBackendThreadConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return ProgressModeHarness.of(NixlTck.inJvm(), ProgressMode.BACKEND_THREAD);
    }
}
