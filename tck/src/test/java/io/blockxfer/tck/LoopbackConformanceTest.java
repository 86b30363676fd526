package io.blockxfer.tck;

import io.blockxfer.loopback.LoopbackFaults;
import io.blockxfer.transport.DataTransport;

/** The loopback backend, certified by the whole kit in one JVM, with its fault injection for kill and stall. */
class LoopbackConformanceTest extends TransportConformanceSuite {

    static InJvmHarness loopbackHarness() {
        return InJvmHarness.of("loopback")
                .withKill(t -> {
                    faults(t).kill();
                    t.close();
                })
                .withStall((t, stalled) -> faults(t).stall(stalled));
    }

    private static LoopbackFaults faults(DataTransport t) {
        return t.feature(LoopbackFaults.class).orElseThrow();
    }

    @Override
    protected TckHarness harness() {
        return loopbackHarness();
    }
}
