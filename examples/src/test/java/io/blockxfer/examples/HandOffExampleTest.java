package io.blockxfer.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.blockxfer.holds.HoldEnd;
import io.blockxfer.holds.Lease;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * docs/holds.md's hand-offs, run: a prefill and a decode worker on loopback pull a request's blocks,
 * then push another's.
 */
class HandOffExampleTest {

    private static DataTransport open(String agent) {
        return Transports.open(TransportConfig.builder(RegionSpec.allocate(32, 4096)).agentName(agent)
                .transport("loopback").build());
    }

    @Test
    void theDecodeWorkerPullsThePrefillsBlocksAndThePrefillFreesThemOnce() throws Exception {
        try (DataTransport p = open("prefill-0"); DataTransport d = open("decode-0")) {
            p.addPeer("decode-0", d.localDescriptor());
            d.addPeer("prefill-0", p.localDescriptor());
            p.region().segment().asSlice(3 * 4096L, 4096).fill((byte) 33);
            try (PullHandOff.Prefill prefill = new PullHandOff.Prefill(p);
                    PullHandOff.Decode decode = new PullHandOff.Decode(d)) {
                byte[] grant = prefill.lend("decode-0", new int[] {3, 4});
                decode.pull("prefill-0", grant, new int[] {20, 21}).get(10, TimeUnit.SECONDS);
                assertEquals(33, d.region().segment().get(ValueLayout.JAVA_BYTE, 20 * 4096L));
                List<Integer> freed = new ArrayList<>();
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (freed.size() < 2 && System.nanoTime() < until) {
                    prefill.step(freed::add);
                    Thread.sleep(5);
                }
                assertEquals(List.of(3, 4), freed);
            }
        }
    }

    @Test
    void thePrefillPushesIntoTheDecodeWorkersBlocksAndTheDecodeWorkerLearnsTheyAreWritten() throws Exception {
        try (DataTransport p = open("prefill-0"); DataTransport d = open("decode-0")) {
            p.addPeer("decode-0", d.localDescriptor());
            d.addPeer("prefill-0", p.localDescriptor());
            p.region().segment().asSlice(0, 4096).fill((byte) 44);
            try (PushHandOff.Decode decode = new PushHandOff.Decode(d);
                    PushHandOff.Prefill prefill = new PushHandOff.Prefill(p)) {
                decode.expect("prefill-0", "req-7", new int[] {9});
                Map<String, Lease> leases = new HashMap<>();
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (leases.isEmpty() && System.nanoTime() < until) {
                    prefill.take(leases::put);
                    Thread.sleep(5);
                }
                prefill.push(leases.get("req-7"), new int[] {0}).get(10, TimeUnit.SECONDS);
                List<HoldEnd> ends = new ArrayList<>();
                List<Boolean> written = new ArrayList<>();
                while (ends.isEmpty() && System.nanoTime() < until) {
                    decode.step((end, ok) -> {
                        ends.add(end);
                        written.add(ok);
                    });
                    Thread.sleep(5);
                }
                assertEquals(List.of(true), written);
                assertEquals(44, d.region().segment().get(ValueLayout.JAVA_BYTE, 9 * 4096L));
            }
        }
    }
}
