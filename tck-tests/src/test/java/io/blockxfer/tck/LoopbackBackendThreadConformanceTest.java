package io.blockxfer.tck;

import io.blockxfer.transport.ProgressMode;
import org.junit.jupiter.api.Tag;

/**
 * The loopback backend, certified by the whole kit in one JVM with its worker thread doing every
 * copy ({@link ProgressMode#BACKEND_THREAD}); {@link LoopbackConformanceTest} certifies the default,
 * the polling-thread mode.
 */
// full tier: a second progress mode of loopback, about 33 s; the fast tier certifies each backend in one
// mode (loopback's default: LoopbackConformanceTest), the full tier every mode and placement
@Tag("full")
class LoopbackBackendThreadConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return ProgressModeHarness.of(LoopbackConformanceTest.loopbackHarness(), ProgressMode.BACKEND_THREAD);
    }
}
