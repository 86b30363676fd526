package io.blockxfer.ucx;

import io.blockxfer.tck.ProgressModeHarness;
import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import io.blockxfer.transport.ProgressMode;

/**
 * The UCX backend, certified by the whole kit in this JVM with only its progress thread driving
 * the worker ({@link ProgressMode#BACKEND_THREAD}).
 */
class UcxBackendThreadConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return ProgressModeHarness.of(UcxTck.inJvm(), ProgressMode.BACKEND_THREAD);
    }
}
