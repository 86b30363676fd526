package io.blockxfer.nixl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.blockxfer.nixl.NixlProvider;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The downcall probe the JMH module uses works, and prints a rough per-call cost. */
class NixlDowncallProbeTest {

    @Test
    void probeCallsReturnAtOnce() {
        var availability = new NixlProvider().availability();
        Assumptions.assumeTrue(availability.isAvailable()
                || io.blockxfer.tck.TckEnvironment.fromSystem().requires("nixl"),
                () -> "nixl is unavailable: " + availability.cause());
        try (NixlDowncallProbe probe = NixlDowncallProbe.open()) {
            assertFalse(probe.isStub());
            assertEquals(NixlStatus.SUCCESS, probe.statusOfFinishedRequest());
            assertEquals(NixlStatus.SUCCESS, probe.repost());
            assertEquals(NixlStatus.SUCCESS, probe.statusOfFinishedRequest());
            int n = 2_000_000;
            int statusCalls = n / 10;
            for (int round = 0; round < 2; round++) {
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    probe.isStub();
                }
                long t1 = System.nanoTime();
                for (int i = 0; i < statusCalls; i++) {
                    probe.statusOfFinishedRequest();
                }
                long t2 = System.nanoTime();
                if (round == 1) {
                    System.out.printf("downcall cost: is_stub %.1f ns, get_xfer_status(finished) %.1f ns%n",
                            (t1 - t0) / (double) n, (t2 - t1) / (double) statusCalls);
                }
            }
        }
    }
}
