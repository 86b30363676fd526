package io.blockxfer.nixl;

import io.blockxfer.tck.InJvmHarness;
import io.blockxfer.tck.ProgressModeHarness;
import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import io.blockxfer.transport.ProgressMode;
import org.junit.jupiter.api.Tag;

/**
 * The whole conformance kit against real NIXL in this JVM, with NIXL's progress thread on its
 * backend-thread rhythm ({@link ProgressMode#BACKEND_THREAD}: a look every millisecond, UCX's
 * spinlock); {@link NixlConformanceTest} certifies the default, the polling-thread mode.
 */
// full tier: the non-default progress mode (BACKEND_THREAD) in this JVM; the fast tier certifies the default
// mode, in this JVM and in two processes
@Tag("full")
class NixlBackendThreadConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return ProgressModeHarness.of(InJvmHarness.of(NixlProvider.NAME), ProgressMode.BACKEND_THREAD);
    }
}
