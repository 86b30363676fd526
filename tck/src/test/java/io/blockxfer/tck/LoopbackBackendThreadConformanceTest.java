package io.blockxfer.tck;

import io.blockxfer.transport.ProgressMode;

/**
 * The loopback backend, certified by the whole kit in one JVM with its worker thread doing every
 * copy ({@link ProgressMode#BACKEND_THREAD}); {@link LoopbackConformanceTest} certifies the default,
 * the polling-thread mode. Both run in the fast tier: loopback has these two modes only, and its
 * suite is short.
 */
class LoopbackBackendThreadConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return ProgressModeHarness.of(LoopbackConformanceTest.loopbackHarness(), ProgressMode.BACKEND_THREAD);
    }
}
