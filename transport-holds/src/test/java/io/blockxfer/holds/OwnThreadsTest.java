package io.blockxfer.holds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.loopback.LoopbackFaults;
import io.blockxfer.transport.DataTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Holds on real time with their own threads: the tick thread renews and expires, the pump thread
 * takes the notifications. A renewing holder keeps its hold for many TTLs; a holder whose
 * transport dies loses it within its TTL and a second.
 */
class OwnThreadsTest {

    private static final Duration TTL = Duration.ofSeconds(1);

    @Test
    void aLiveHolderKeepsItsHoldAndADeadOneLosesItWithinItsTtl() throws Exception {
        try (DataTransport prefill = Pair.open("prefill-0"); DataTransport decode = Pair.open("decode-0")) {
            prefill.addPeer("decode", decode.localDescriptor());
            decode.addPeer("prefill", prefill.localDescriptor());
            List<Object> others = new ArrayList<>();
            try (Holds owner = Holds.builder(prefill).tickInterval(Duration.ofMillis(10)).pumpNotifications(others::add)
                    .build();
                    Holds holder = Holds.builder(decode).tickInterval(Duration.ofMillis(10))
                            .pumpNotifications(others::add).build()) {
                Hold kept = owner.create("decode", new int[] {1}, TTL);
                Lease lease = holder.accept("prefill", kept.grant());
                lease.whenConfirmed().get(5, TimeUnit.SECONDS);
                Thread.sleep(TTL.multipliedBy(3).toMillis());
                assertTrue(kept.isLive(), "renewed for three TTLs");
                lease.readAndRelease(new int[] {0}, new int[] {1}).get(5, TimeUnit.SECONDS);
                List<HoldEnd> ends = new ArrayList<>();
                owner.pollEnded(ends::add, 5, TimeUnit.SECONDS);
                assertEquals(HoldEnd.Reason.RELEASED, ends.get(0).reason());

                Hold orphaned = owner.create("decode", new int[] {2}, TTL);
                holder.accept("prefill", orphaned.grant()).whenConfirmed().get(5, TimeUnit.SECONDS);
                long died = System.nanoTime();
                decode.feature(LoopbackFaults.class).orElseThrow().kill();
                ends.clear();
                owner.pollEnded(ends::add, 5, TimeUnit.SECONDS);
                long took = System.nanoTime() - died;
                assertEquals(HoldEnd.Reason.EXPIRED, ends.get(0).reason());
                assertTrue(took <= TTL.plusSeconds(1).toNanos(), "ended " + took / 1_000_000 + " ms after the death");
                assertTrue(others.isEmpty(), "no other notification came");
            }
        }
    }
}
