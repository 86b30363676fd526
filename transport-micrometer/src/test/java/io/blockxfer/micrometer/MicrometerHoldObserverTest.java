package io.blockxfer.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.blockxfer.holds.Hold;
import io.blockxfer.holds.Holds;
import io.blockxfer.holds.Lease;
import io.blockxfer.holds.ManualHoldClock;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Holds on loopback, metered: the blocks and bytes held per peer, ends by reason, renewal traffic, leases. */
class MicrometerHoldObserverTest {

    private static DataTransport open(String agent) {
        return Transports.open(TransportConfig.builder(RegionSpec.allocate(8, 1024)).transport("loopback")
                .agentName(agent).build());
    }

    @Test
    void heldBlocksAndBytesPerPeerEndsByReasonAndRenewalTraffic() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ManualHoldClock clock = new ManualHoldClock();
        try (DataTransport prefill = open("prefill-0"); DataTransport decode = open("decode-0")) {
            prefill.addPeer("decode", decode.localDescriptor());
            decode.addPeer("prefill", prefill.localDescriptor());
            try (Holds owner = Holds.builder(prefill).clock(clock).manualTicks()
                    .observer(new MicrometerHoldObserver(registry)).build();
                    Holds holder = Holds.builder(decode).clock(clock).manualTicks()
                            .observer(new MicrometerHoldObserver(registry)).build()) {
                Hold a = owner.create("decode", new int[] {0, 1, 2}, Duration.ofSeconds(2));
                owner.create("decode", new int[] {3}, Duration.ofSeconds(2));
                assertEquals(4, gauge(registry, "blockxfer.holds.held.blocks"));
                assertEquals(4096, gauge(registry, "blockxfer.holds.held.bytes"));
                assertEquals(2, gauge(registry, "blockxfer.holds.live"));
                Lease lease = holder.accept("prefill", a.grant());
                exchange(prefill, owner, decode, holder);
                lease.release();
                exchange(prefill, owner, decode, holder);
                clock.advance(Duration.ofSeconds(3));
                owner.tick();
                assertEquals(0, gauge(registry, "blockxfer.holds.held.blocks"));
                assertEquals(0, gauge(registry, "blockxfer.holds.live"));
                assertEquals(1, count(registry, "blockxfer.holds.ended", "released"));
                assertEquals(1, count(registry, "blockxfer.holds.ended", "expired"));
                assertEquals(0, count(registry, "blockxfer.holds.ended", "peer-removed"), "registered at zero");
                assertEquals(1, registry.get("blockxfer.holds.renewals.sent").tag("agent", "decode-0").counter().count());
                assertEquals(23, registry.get("blockxfer.holds.renewal.bytes").tag("owner", "prefill").counter().count(),
                        "one renewal of one hold: 23 bytes");
                assertEquals(1, registry.get("blockxfer.holds.renewals.granted").tag("peer", "decode").counter().count());
                assertEquals(1, registry.get("blockxfer.holds.leases.ended").tag("reason", "released").counter().count());
                assertEquals(2, registry.get("blockxfer.holds.held.time").tag("agent", "prefill-0").timers().stream()
                        .mapToLong(t -> t.count()).sum());
            }
        }
    }

    private static double gauge(SimpleMeterRegistry r, String name) {
        return r.get(name).tag("agent", "prefill-0").tag("peer", "decode").gauge().value();
    }

    private static double count(SimpleMeterRegistry r, String name, String reason) {
        return r.get(name).tag("agent", "prefill-0").tag("reason", reason).counter().count();
    }

    private static void exchange(DataTransport a, Holds ha, DataTransport b, Holds hb) throws InterruptedException {
        for (int quiet = 0; quiet < 3; ) {
            int n = a.pollNotifications(ha.handler(x -> { }), 5, TimeUnit.MILLISECONDS)
                    + b.pollNotifications(hb.handler(x -> { }), 5, TimeUnit.MILLISECONDS);
            quiet = n == 0 ? quiet + 1 : 0;
        }
    }
}
