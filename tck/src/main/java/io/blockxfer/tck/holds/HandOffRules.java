package io.blockxfer.tck.holds;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.holds.Hold;
import io.blockxfer.holds.HoldEnd;
import io.blockxfer.holds.Lease;
import io.blockxfer.holds.LeaseException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * H1-H4: the hand-offs. The holder's transfers wait behind a {@link Gate}, so each rule looks at the
 * owner while the holder's last transfer has not moved a byte: a hold that ends then was handed back
 * under a transfer.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class HandOffRules extends HoldRuleGroup {

    HandOffRules(HoldConformanceSuite suite) {
        super(suite);
    }

    @HoldRuleTest(HoldRules.H1)
    final void pullReleasesWithTheLastReadAfterItsBytes() throws Exception {
        HoldFixture fx = pair();
        int[] held = {0, 1, 2, 3};
        int[] local = {8, 9, 10, 11};
        Hold hold = fx.hold(held);
        Lease lease = fx.confirmed(hold);
        fx.gate().shut();
        CompletableFuture<Void> read = lease.readAndRelease(local, held);
        fx.assertNoEnds("the hold ended while the read that releases it had not moved a byte");
        assertTrue(hold.isLive(), fx.msg("the hold is live while its last read is held back"));
        fx.gate().open();
        fx.done(read, "the read that releases");
        List<HoldEnd> ends = fx.awaitEnds(1);
        assertEquals(1, ends.size(), fx.msg("one end: " + ends));
        HoldEnd end = ends.get(0);
        assertEquals(HoldEnd.Reason.RELEASED, end.reason(), fx.msg("released by the holder: " + end));
        assertEquals(hold.id(), end.holdId(), fx.msg("the hold's own end"));
        assertArrayEquals(held, end.blocks(), fx.msg("the end carries the hold's blocks"));
        fx.reuse(end);
        for (int i = 0; i < held.length; i++) {
            assertTrue(fx.holderHasOwners(local[i], held[i]), fx.msg("the holder's copy of block " + held[i]
                    + " is the owner's first bytes, after the owner reused the block"));
        }
        assertEquals(Lease.EndReason.RELEASED, lease.whenEnded().get(fx.env.timeout().toMillis(),
                TimeUnit.MILLISECONDS), fx.msg("the lease ended released"));
        fx.assertNoEnds("a hold ends once");
    }

    @HoldRuleTest(HoldRules.H2)
    final void aReleaseWaitsForEveryReadInFlight() throws Exception {
        HoldFixture fx = pair();
        Hold first = fx.hold(0, 1);
        Lease lease = fx.confirmed(first);
        fx.gate().shut();
        CompletableFuture<Void> a = lease.read(new int[] {8}, new int[] {0});
        CompletableFuture<Void> b = lease.read(new int[] {9}, new int[] {1});
        assertTrue(lease.release(), fx.msg("the first release releases"));
        fx.assertNoEnds("release() ended the hold while two reads under it were held back");
        fx.gate().open();
        fx.done(a, "the first read");
        fx.done(b, "the second read");
        List<HoldEnd> ends = fx.awaitEnds(1);
        assertEquals(List.of(HoldEnd.Reason.RELEASED), ends.stream().map(HoldEnd::reason).toList(),
                fx.msg("one end, released, once both reads ended"));

        Hold second = fx.hold(2, 3);
        Lease other = fx.confirmed(second);
        fx.gate().shut();
        CompletableFuture<Void> c = other.read(new int[] {10}, new int[] {2});
        CompletableFuture<Void> d = other.readAndRelease(new int[] {11}, new int[] {3});
        fx.assertNoEnds("readAndRelease ended the hold while another read under it was held back");
        fx.gate().open();
        fx.done(c, "the read beside the releasing one");
        fx.done(d, "the releasing read");
        assertEquals(List.of(HoldEnd.Reason.RELEASED), fx.awaitEnds(1).stream().map(HoldEnd::reason).toList(),
                fx.msg("one end, released, once both reads ended"));
        assertTrue(fx.holderHasOwners(10, 2) && fx.holderHasOwners(11, 3), fx.msg("both reads brought the bytes"));
        fx.assertNoEnds("each hold ends once");
    }

    @HoldRuleTest(HoldRules.H3)
    final void pushReleasesWithTheLastWriteAfterItsBytes() throws Exception {
        HoldFixture fx = pair();
        Hold hold = fx.hold(6, 7);
        byte[] tag = "push-1".getBytes(StandardCharsets.US_ASCII);
        assertTrue(hold.sendGrant(tag), fx.msg("the grant went out as a notification"));
        List<Lease> leases = new ArrayList<>();
        fx.exchangeUntil("the grant to arrive", () -> fx.holder().pollLeases(leases::add) > 0);
        assertEquals(1, leases.size(), fx.msg("the sender got the grant as a lease"));
        Lease lease = leases.get(0);
        assertArrayEquals(tag, lease.tag(), fx.msg("with the receiver's tag"));
        fx.done(lease.write(new int[] {0}, new int[] {6}), "the first write");
        fx.gate().shut();
        CompletableFuture<Void> last = lease.writeAndRelease(new int[] {1}, new int[] {7});
        fx.assertNoEnds("the hold ended while the sender's last write, which releases it, was held back");
        fx.gate().open();
        fx.done(last, "the write that releases");
        List<HoldEnd> ends = fx.awaitEnds(1);
        assertEquals(List.of(HoldEnd.Reason.RELEASED), ends.stream().map(HoldEnd::reason).toList(),
                fx.msg("one end, released"));
        assertTrue(fx.ownerHasHolders(6, 0) && fx.ownerHasHolders(7, 1),
                fx.msg("the receiver's blocks hold what the sender wrote when the hold ended"));

        Hold abandoned = fx.hold(8);
        assertTrue(abandoned.sendGrant(new byte[0]));
        List<Lease> more = new ArrayList<>();
        fx.exchangeUntil("the second grant to arrive", () -> fx.holder().pollLeases(more::add) > 0);
        assertEquals(1, more.size(), fx.msg("the second grant arrived"));
        assertTrue(more.get(0).abandon(), fx.msg("the sender gives up"));
        assertEquals(List.of(HoldEnd.Reason.ABANDONED), fx.awaitEnds(1).stream().map(HoldEnd::reason).toList(),
                fx.msg("the receiver learns the sender gave up"));
        fx.assertNoEnds("each hold ends once");

        // a write starts only with a quarter TTL confirmed ahead: 0.8 TTL later on the holder's clock,
        // with no renewal meanwhile, it is refused and moves nothing; renewed, it goes
        Lease lapsing = fx.confirmed(fx.hold(9));
        fx.holderClock.advance(HoldFixture.TTL.multipliedBy(4).dividedBy(5));
        LeaseException refused = fx.leaseFailure(lapsing.write(new int[] {2}, new int[] {9}),
                "a write with a fifth of the TTL confirmed ahead");
        assertTrue(refused.getMessage() != null && refused.getMessage().contains("quarter"),
                fx.msg("the refusal says a write needs a quarter of the TTL confirmed: " + refused));
        assertFalse(fx.ownerHasHolders(9, 2), fx.msg("nothing of the refused write reached the receiver's block"));
        fx.tick();
        fx.done(lapsing.writeAndRelease(new int[] {2}, new int[] {9}), "the write once a renewal confirmed the lease");
        assertEquals(List.of(HoldEnd.Reason.RELEASED), fx.awaitEnds(1).stream().map(HoldEnd::reason).toList(),
                fx.msg("released with that write"));
        assertTrue(fx.ownerHasHolders(9, 2), fx.msg("the receiver's block holds what the sender wrote"));
    }

    @HoldRuleTest(HoldRules.H4)
    final void aCancelRevokesWithoutPullingBlocksFromUnderARead() throws Exception {
        HoldFixture fx = pair();
        Hold hold = fx.hold(0, 1);
        Lease lease = fx.confirmed(hold);
        fx.gate().shut();
        CompletableFuture<Void> read = lease.read(new int[] {8}, new int[] {0});
        long delivered = fx.holderDelivered();
        assertTrue(hold.cancel(), fx.msg("the first cancel cancels"));
        assertFalse(hold.cancel(), fx.msg("a second cancel does nothing"));
        fx.exchangeUntil("the cancel to reach the holder", () -> fx.holderDelivered() > delivered);
        CompletableFuture<Void> late = lease.read(new int[] {9}, new int[] {1});
        assertTrue(late.isCompletedExceptionally(), fx.msg("a transfer started after the revocation fails at once"));
        LeaseException e = fx.leaseFailure(late, "the read after the revocation");
        assertEquals(Optional.of(Lease.EndReason.REVOKED), e.endReason(), fx.msg("revoked: " + e));
        fx.assertNoEnds("the cancelled hold ended while a read under it was held back");
        fx.gate().open();
        fx.done(read, "the read started before the cancel");
        assertTrue(fx.holderHasOwners(8, 0), fx.msg("the read brought the owner's bytes"));
        List<HoldEnd> ends = fx.awaitEnds(1);
        assertEquals(List.of(HoldEnd.Reason.CANCELLED), ends.stream().map(HoldEnd::reason).toList(),
                fx.msg("one end, cancelled, once the holder let go"));
        fx.assertNoEnds("a hold ends once");
    }
}
