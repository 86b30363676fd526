package io.blockxfer.ucx;

import io.blockxfer.tck.InJvmHarness;
import io.blockxfer.tck.TckHarness;
import io.blockxfer.tck.TransportConformanceSuite;
import io.blockxfer.tck.TwoProcessHarness;
import java.util.List;

/** The UCX backend, certified by the whole kit with targets in child JVMs, every region in caller memory. */
class UcxTwoProcessCallerMemoryConformanceTest extends TransportConformanceSuite {

    @Override
    protected TckHarness harness() {
        return TwoProcessHarness.of(InJvmHarness.of(UcxProvider.NAME).withCallerMemory())
                .withJvmArgs(List.of("-Djava.io.tmpdir=" + ChildTemp.directory()));
    }
}
