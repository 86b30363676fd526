package io.blockxfer.holds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The two hand-offs end to end on loopback: a decode worker pulls a prefill's blocks, a prefill pushes into a decode's. */
class PullAndPushTest {

    private final Pair p = new Pair();

    @AfterEach
    void close() {
        p.close();
    }

    @Test
    void aPulledHoldEndsReleasedOnceAfterTheReadBroughtItsBytes() throws Exception {
        for (int b = 0; b < 4; b++) {
            Pair.fill(p.ownerTransport, b, (byte) (b + 1));
        }
        Hold hold = p.owner.create("holder", new int[] {0, 1, 2, 3}, Pair.TTL);
        Lease lease = p.holder.accept("owner", HoldGrant.decode(hold.grant("req-1".getBytes()).encode()));
        p.exchange();
        assertEquals(Lease.Status.CONFIRMED, lease.status());
        CompletableFuture<Void> read = lease.readAndRelease(new int[] {8, 9, 10, 11}, new int[] {0, 1, 2, 3});
        read.get(5, TimeUnit.SECONDS);
        for (int b = 0; b < 4; b++) {
            assertTrue(Pair.holds(p.holderTransport, 8 + b, (byte) (b + 1)), "block " + b + " arrived");
        }
        List<HoldEnd> ends = p.awaitEnds();
        assertEquals(1, ends.size());
        assertEquals(HoldEnd.Reason.RELEASED, ends.get(0).reason());
        assertEquals(4, ends.get(0).blockCount());
        assertEquals(Lease.EndReason.RELEASED, lease.whenEnded().get(5, TimeUnit.SECONDS));
        assertFalse(hold.isLive());
        assertFalse(lease.release(), "a second release does nothing");
        p.exchange();
        assertEquals(0, p.ends().size(), "never a second end");
        assertEquals(0, p.owner.stats().liveHolds());
        assertEquals(0, p.holder.stats().openLeases());
    }

    @Test
    void aPushedHoldEndsReleasedWhenTheSendersLastWriteLanded() throws Exception {
        Hold hold = p.owner.create("holder", new int[] {5, 6}, Pair.TTL);
        assertTrue(hold.sendGrant("req-2".getBytes()));
        p.exchange();
        List<Lease> leases = new ArrayList<>();
        p.holder.pollLeases(leases::add);
        assertEquals(1, leases.size());
        Lease lease = leases.get(0);
        assertEquals("req-2", new String(lease.tag()));
        Pair.fill(p.holderTransport, 0, (byte) 42);
        Pair.fill(p.holderTransport, 1, (byte) 43);
        lease.write(new int[] {0}, new int[] {5}).get(5, TimeUnit.SECONDS);
        lease.writeAndRelease(new int[] {1}, new int[] {6}).get(5, TimeUnit.SECONDS);
        List<HoldEnd> ends = p.awaitEnds();
        assertEquals(HoldEnd.Reason.RELEASED, ends.get(0).reason());
        assertTrue(Pair.holds(p.ownerTransport, 5, (byte) 42));
        assertTrue(Pair.holds(p.ownerTransport, 6, (byte) 43));
    }
}
