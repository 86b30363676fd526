package io.blockxfer.ucx;

import io.blockxfer.tck.ProgressModeHarness;
import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import io.blockxfer.transport.ProgressMode;

/**
 * The UCX backend, certified by the whole kit with initiator and targets in this JVM, with polls
 * driving the worker ({@link ProgressMode#POLLING_THREAD}, what {@link ProgressMode#AUTO} picks).
 */
class UcxConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return ProgressModeHarness.of(UcxTck.inJvm(), ProgressMode.POLLING_THREAD);
    }
}
