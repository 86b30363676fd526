package io.blockxfer.holds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.Membership;
import io.blockxfer.directory.memory.InMemoryCluster;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The holds of a peer the transport no longer has end at once: removed by hand, or by a membership whose lease of it expired. */
class PeerRemovalTest {

    @Test
    void aRemovedPeersHoldsEndAtTheNextTickAndOtherPeersHoldsStay() throws Exception {
        try (Pair p = new Pair(); DataTransport other = Pair.open("decode-1")) {
            p.ownerTransport.addPeer("other", other.localDescriptor());
            Hold a = p.owner.create("holder", new int[] {1}, Pair.TTL);
            Hold b = p.owner.create("holder", new int[] {2}, Pair.TTL);
            Hold c = p.owner.create("other", new int[] {1}, Pair.TTL);
            assertTrue(p.ownerTransport.removePeer("holder"));
            p.owner.tick();
            List<HoldEnd> ends = p.ends();
            assertEquals(2, ends.size());
            assertTrue(ends.stream().allMatch(e -> e.reason() == HoldEnd.Reason.PEER_REMOVED));
            assertTrue(!a.isLive() && !b.isLive() && c.isLive());
            assertEquals(1, p.owner.stats().liveHolds());
        }
    }

    @Test
    void aCallerThatKnowsFirstEndsAPeersHoldsItself() throws Exception {
        try (Pair p = new Pair()) {
            p.owner.create("holder", new int[] {1}, Pair.TTL);
            assertEquals(1, p.owner.peerRemoved("holder"));
            assertEquals(HoldEnd.Reason.PEER_REMOVED, p.ends().get(0).reason());
            assertEquals(0, p.owner.peerRemoved("holder"));
        }
    }

    @Test
    void toldNotToEndAtOnceARemovedPeersHoldRunsOutItsTtl() throws Exception {
        try (Pair p = new Pair(b -> b.endOnPeerRemoval(false), b -> b)) {
            Hold hold = p.owner.create("holder", new int[] {1}, Pair.TTL);
            p.ownerTransport.removePeer("holder");
            p.owner.tick();
            assertTrue(hold.isLive());
            p.ownerClock.advance(Pair.TTL);
            p.owner.tick();
            assertEquals(HoldEnd.Reason.EXPIRED, p.ends().get(0).reason());
        }
    }

    @Test
    void aHolderWhoseMembershipLeaseExpiredLosesItsHoldsAtOnce() throws Exception {
        DeploymentKeyRing ring = DeploymentKeyRing.of("k1", new byte[] {
            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30,
            31, 32});
        List<AutoCloseable> open = new ArrayList<>();
        try (InMemoryCluster cluster = InMemoryCluster.withManualClock()) {
            DataTransport prefill = keyed("prefill-0", ring, open);
            DataTransport decode = keyed("decode-0", ring, open);
            Directory prefillDir = cluster.connect("/holds/");
            Directory decodeDir = cluster.connect("/holds/");
            open.add(prefillDir);
            open.add(decodeDir);
            open.add(Membership.builder(prefill, prefillDir).keyRing(ring).ttl(Duration.ofSeconds(5))
                    .flapInterval(Duration.ZERO).build());
            open.add(Membership.builder(decode, decodeDir).keyRing(ring).ttl(Duration.ofSeconds(5))
                    .flapInterval(Duration.ZERO).build());
            awaitRegistered(prefill, "decode-0", true);
            awaitRegistered(decode, "prefill-0", true);
            ManualHoldClock clock = new ManualHoldClock();
            Holds owner = Holds.builder(prefill).clock(clock).manualTicks().build();
            Holds holder = Holds.builder(decode).clock(clock).manualTicks().build();
            open.add(owner);
            open.add(holder);
            Hold hold = owner.create("decode-0", new int[] {1, 2}, Pair.TTL);
            assertTrue(hold.sendGrant(new byte[0]));
            List<Lease> leases = new ArrayList<>();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (leases.isEmpty() && System.nanoTime() < until) {
                decode.pollNotifications(holder.handler(n -> { }), 10, TimeUnit.MILLISECONDS);
                holder.pollLeases(leases::add);
            }
            assertEquals(1, leases.size());
            prefill.pollNotifications(owner.handler(n -> { }), 100, TimeUnit.MILLISECONDS);
            cluster.crash(decodeDir); // the decode process stops keeping its membership lease alive
            cluster.advance(Duration.ofSeconds(6));
            awaitRegistered(prefill, "decode-0", false);
            owner.tick();
            List<HoldEnd> ends = new ArrayList<>();
            owner.pollEnded(ends::add);
            assertEquals(1, ends.size());
            assertEquals(HoldEnd.Reason.PEER_REMOVED, ends.get(0).reason());
            assertEquals(0, owner.stats().messagesRefused(), "the keyed deployment's hold messages were authenticated");
        } finally {
            for (int i = open.size() - 1; i >= 0; i--) {
                open.get(i).close();
            }
        }
    }

    private static DataTransport keyed(String name, DeploymentKeyRing ring, List<AutoCloseable> open) {
        DataTransport t = Transports.open(TransportConfig.builder(RegionSpec.allocate(Pair.BLOCKS, Pair.BLOCK))
                .agentName(name).transport("loopback").keyRing(ring).build());
        open.add(t);
        return t;
    }

    private static void awaitRegistered(DataTransport t, String peer, boolean registered) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (t.traffic(peer).isPresent() != registered && System.nanoTime() < until) {
            Thread.sleep(5);
        }
        assertEquals(registered, t.traffic(peer).isPresent(), peer + (registered ? " registered" : " removed"));
    }
}
