package io.blockxfer.ucx;

import io.blockxfer.tck.InJvmHarness;
import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;

/** The UCX backend, certified by the whole kit with initiator and targets in this JVM. */
class UcxConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return InJvmHarness.of(UcxProvider.NAME);
    }
}
