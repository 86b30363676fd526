package io.blockxfer.directory;

import static io.blockxfer.directory.Writes.assertWriteLands;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.directory.memory.InMemoryCluster;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Members on demand, by group and mixed with the eager mode, over loopback transports and the
 * in-memory directory: what a process holds is what it resolved and the groups it follows. The
 * directory kit's rules check the same against every directory; these check the details.
 */
class OnDemandMembershipTest {

    private static final String PREFIX = "/kv/fleet/";
    private static final DeploymentKeyRing RING = DeploymentKeyRing.of("k1", MemberEntryTest.key(1));

    private final InMemoryCluster cluster = InMemoryCluster.withManualClock();
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        cluster.close();
    }

    private <T extends AutoCloseable> T keep(T c) {
        open.add(c);
        return c;
    }

    private DataTransport transport(String agent) {
        DataTransport t = keep(Transports.open(TransportConfig.builder(RegionSpec.allocate(8, 256))
                .transport("loopback").agentName(agent).keyRing(RING).build()));
        transports.put(agent, t);
        return t;
    }

    private Membership member(String id, Recorder r, UnaryOperator<Membership.Builder> tweak) {
        return keep(tweak.apply(Membership.builder(transport(id), keep(cluster.connect(PREFIX))).keyRing(RING)
                .ttl(Duration.ofSeconds(5)).flapInterval(Duration.ZERO).listener(r)).build());
    }

    private static MemberResolutionException failure(CompletableFuture<Long> f) throws InterruptedException {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof MemberResolutionException, String.valueOf(e.getCause()));
        return (MemberResolutionException) e.getCause();
    }

    @Test
    void aMemberIsHeldOnlyOnceResolvedAndConcurrentResolutionsShareOne() throws Exception {
        Recorder ra = new Recorder();
        Membership a = member("a", ra, b -> b.followNone());
        Membership b = member("b", new Recorder(), UnaryOperator.identity());
        member("c", new Recorder(), UnaryOperator.identity());
        Thread.sleep(200);
        assertEquals(Map.of(), a.members(), "nothing about an unresolved member reaches the process");
        assertEquals(0, ra.count("added"), ra.lines().toString());

        List<CompletableFuture<Long>> calls = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            calls.add(a.resolve("b"));
        }
        for (CompletableFuture<Long> f : calls) {
            assertEquals(b.epoch(), f.get(10, TimeUnit.SECONDS));
        }
        ra.await("added b "); // the listeners hear of it on the membership's thread, after it is writable
        assertEquals(1, ra.count("added b"), "one resolution for eight calls: " + ra.lines());
        assertEquals(Map.of("b", b.epoch()), a.members(), "c was never asked for");
        DataTransport ta = transportOf(a);
        assertWriteLands(ta, "b", transports.get("b"), (byte) 5);
        assertEquals(b.epoch(), a.resolve("b").get(1, TimeUnit.SECONDS), "held: at once");
    }

    @Test
    void anAbsentMemberOrARefusedEntryFailsWithItsReason() throws Exception {
        Recorder ra = new Recorder();
        Membership a = member("a", ra, b -> b.followNone());
        MemberResolutionException absent = failure(a.resolve("nobody"));
        assertEquals(MemberResolutionException.Reason.NO_SUCH_MEMBER, absent.reason(), absent.getMessage());
        assertTrue(absent.getMessage().contains("nobody"), absent.getMessage());

        DeploymentKeyRing other = DeploymentKeyRing.of("k9", MemberEntryTest.key(9));
        DataTransport stranger = keep(Transports.open(TransportConfig.builder(RegionSpec.allocate(8, 256))
                .transport("loopback").agentName("s").keyRing(other).build()));
        keep(Membership.builder(stranger, keep(cluster.connect(PREFIX))).keyRing(other).ttl(Duration.ofSeconds(5))
                .build());
        MemberResolutionException refused = failure(a.resolve("s"));
        assertEquals(MemberResolutionException.Reason.REFUSED, refused.reason(), refused.getMessage());
        assertEquals(Refusal.Reason.UNKNOWN_KEY, refused.refusal().orElseThrow().reason());
        assertEquals(Map.of(), a.members());
        assertThrows(IllegalArgumentException.class, () -> a.resolve("a"), "its own id");
        assertThrows(IllegalArgumentException.class, () -> a.resolve("no/slash"));
    }

    @Test
    void aResolutionEndsWithItsMembersRegistrationAndTheMemberIsResolvedAnewAfterItsReturn() throws Exception {
        Recorder ra = new Recorder();
        Membership a = member("a", ra, b -> b.followNone());
        Membership b = member("b", new Recorder(), UnaryOperator.identity());
        long first = a.resolve("b").get(10, TimeUnit.SECONDS);
        b.close();
        ra.await("removed b " + first);
        assertEquals(Map.of(), a.members());
        MemberResolutionException gone = failure(a.resolve("b"));
        assertEquals(MemberResolutionException.Reason.NO_SUCH_MEMBER, gone.reason(), gone.getMessage());
        Membership b2 = member("b", new Recorder(), UnaryOperator.identity());
        Thread.sleep(300);
        assertEquals(0, ra.count("added b " + b2.epoch()), "the resolution ended when b left: " + ra.lines());
        assertEquals(b2.epoch(), a.resolve("b").get(10, TimeUnit.SECONDS));
        ra.await("added b " + b2.epoch());
        assertWriteLands(transportOf(a), "b", transports.get("b"), (byte) 4);
    }

    @Test
    void pastTheLimitTheMemberIdleLongestIsReleasedAndCanBeResolvedAgain() throws Exception {
        Recorder ra = new Recorder();
        Membership a = member("a", ra, b -> b.followNone().maxHeld(2));
        DataTransport ta = transportOf(a);
        for (String id : List.of("b", "c", "d")) {
            member(id, new Recorder(), UnaryOperator.identity());
        }
        a.resolve("b").get(10, TimeUnit.SECONDS);
        a.resolve("c").get(10, TimeUnit.SECONDS);
        // b is used, c is not: within the first second, before any periodic sample
        assertWriteLands(ta, "b", transports.get("b"), (byte) 6);
        a.resolve("d").get(10, TimeUnit.SECONDS);
        String released = ra.await("released ");
        assertTrue(released.startsWith("released c "), "c was idle longest: " + ra.lines());
        assertEquals(Map.of("b", a.members().get("b"), "d", a.members().get("d")), a.members());
        assertFalse(ta.traffic("c").isPresent(), "a released member is no longer in the transport");

        assertTrue(a.release("b"));
        assertFalse(a.release("b"), "released already");
        assertEquals(List.of("d"), List.copyOf(a.members().keySet()));
        a.resolve("c").get(10, TimeUnit.SECONDS);
        assertWriteLands(ta, "c", transports.get("c"), (byte) 7);
    }

    @Test
    void aProcessFollowingAGroupHoldsItsMembersAndAnEagerOneHoldsEveryMemberOnce() throws Exception {
        Recorder prefill = new Recorder();
        Membership p = member("p1", prefill, b -> b.group("prefill").followGroups("decode"));
        Recorder eager = new Recorder();
        Membership e = member("e", eager, UnaryOperator.identity());
        Membership d1 = member("d1", new Recorder(), b -> b.group("decode"));
        Recorder rd2 = new Recorder();
        Membership d2 = member("d2", rd2, b -> b.group("decode").followGroups("prefill"));
        member("x", new Recorder(), UnaryOperator.identity());
        prefill.await("added d2 ");
        eager.await("added x ");
        eager.await("added d2 ");
        Thread.sleep(200);
        assertEquals(Map.of("d1", d1.epoch(), "d2", d2.epoch()), p.members(), "p1 follows decode only");
        assertEquals(Map.of("p1", p.epoch(), "d1", d1.epoch(), "d2", d2.epoch(), "x", member0(eager, "x")),
                e.members());
        for (String id : List.of("p1", "d1", "d2", "x")) {
            assertEquals(1, eager.count("added " + id + " "), "once each: " + eager.lines());
        }
        assertEquals(Map.of("p1", p.epoch()), d2.members(), "d2 follows prefill");
        assertWriteLands(transportOf(p), "d1", transports.get("d1"), (byte) 8);

        // a group key holds only an entry of that group: a copy moved to another group is refused
        byte[] d1Entry = cluster.get(DirectoryScope.groupKey(PREFIX, "decode", "d1")).orElseThrow();
        cluster.put(DirectoryScope.groupKey(PREFIX, "prefill", "d1"), d1Entry);
        String refused = rd2.await("refused ID_MISMATCH");
        assertTrue(refused.contains("group 'prefill'") && refused.contains("group 'decode'"), refused);
        assertEquals(Map.of("p1", p.epoch()), d2.members(), "d2 follows prefill, and d1 is not in it");
        d1.close();
        prefill.await("removed d1 ");
        assertEquals(Map.of("d2", d2.epoch()), p.members());
    }

    @Test
    void aProcessThatFollowsNobodyStillRestoresItsOwnKeyAndItsGroupKey() throws Exception {
        Recorder ra = new Recorder();
        Membership a = member("a", ra, b -> b.group("decode").followNone());
        Recorder reader = new Recorder();
        // the default flap interval: a delete waits for it, so that a restore within it changes nothing
        Membership p = member("p", reader,
                b -> b.followGroups("decode").flapInterval(Membership.DEFAULT_FLAP_INTERVAL));
        reader.await("added a " + a.epoch());
        String own = PREFIX + "a";
        String groupKey = DirectoryScope.groupKey(PREFIX, "decode", "a");
        byte[] entry = cluster.get(own).orElseThrow();
        assertTrue(cluster.delete(own));
        ra.await("restored " + a.epoch());
        assertTrue(cluster.delete(groupKey));
        ra.await(l -> l.startsWith("restored " + a.epoch()) && ra.count("restored ") == 2, "a second restore");
        assertTrue(java.util.Arrays.equals(entry, cluster.get(own).orElseThrow()), "the same entry, restored");
        assertTrue(java.util.Arrays.equals(entry, cluster.get(groupKey).orElseThrow()), "its group key too");
        Thread.sleep(1_500); // past the follower's flap interval
        assertEquals(Map.of("a", a.epoch()), p.members(), "the group's follower still holds it");
        assertEquals(0, reader.count("removed a"), "and never removed it: " + reader.lines());
    }

    @Test
    void aDeleteOfAnotherGroupsKeyNeverRemovesAMemberResolvedThroughItsOwnKey() throws Exception {
        Recorder rp = new Recorder();
        Membership p = member("p", rp, b -> b.group("decode").followGroups("decode"));
        Membership g = member("g-1", new Recorder(), b -> b.group("prefill"));
        long epoch = p.resolve("g-1").get(10, TimeUnit.SECONDS);
        assertEquals(g.epoch(), epoch);
        // a writer without the key: a value under the decode group's key of g-1, then its delete
        String foreign = DirectoryScope.groupKey(PREFIX, "decode", "g-1");
        cluster.put(foreign, cluster.get(PREFIX + "g-1").orElseThrow()); // g-1's own entry, in the wrong group
        rp.await("refused ID_MISMATCH " + foreign);
        assertTrue(cluster.delete(foreign));
        String marker = DirectoryScope.groupKey(PREFIX, "decode", "zz");
        cluster.put(marker, new byte[] {1}); // delivered after the delete on the same watch
        rp.await("refused MALFORMED " + marker);
        Thread.sleep(200);
        assertEquals(Map.of("g-1", g.epoch()), p.members(), "g-1 lives, and its own keys were never touched");
        assertEquals(0, rp.count("removed g-1"), rp.lines().toString());
        assertEquals(g.epoch(), p.resolve("g-1").get(1, TimeUnit.SECONDS), "held: at once");
        assertWriteLands(transportOf(p), "g-1", transports.get("g-1"), (byte) 9);
    }

    @Test
    void aResolvedMemberWhoseNewEpochCannotBeRegisteredIsNoLongerHeldAndTheNextResolveReadsItAnew() throws Exception {
        Recorder ra = new Recorder();
        Membership a = member("a", ra, b -> b.followNone());
        Directory side = keep(cluster.connect(PREFIX));
        DataTransport tb = transport("b-one");
        publishAs(side, "b", 1, tb.localDescriptor());
        assertEquals(1, a.resolve("b").get(10, TimeUnit.SECONDS));
        DataTransport gone = transport("b-gone");
        io.blockxfer.transport.PeerDescriptor unreachable = gone.localDescriptor();
        gone.close(); // its descriptor names a loopback transport that no longer lives
        publishAs(side, "b", 2, unreachable);
        ra.await("registration-failed b 2");
        assertEquals(Map.of(), a.members());
        MemberResolutionException failed = failure(a.resolve("b"));
        assertEquals(MemberResolutionException.Reason.REGISTRATION_FAILED, failed.reason(),
                "read anew and tried again, not left waiting for its timeout: " + failed.getMessage());
        publishAs(side, "b", 3, tb.localDescriptor());
        assertEquals(3, a.resolve("b").get(10, TimeUnit.SECONDS));
        assertWriteLands(transportOf(a), "b", tb, (byte) 3);
    }

    private static void publishAs(Directory side, String id, long epoch, io.blockxfer.transport.PeerDescriptor d) {
        side.publish(id, lease -> MemberEntry.of(id, epoch, lease, d).encode(RING), Duration.ofSeconds(30),
                PublicationListener.NONE);
    }

    private static long member0(Recorder r, String id) throws InterruptedException {
        String line = r.await("added " + id + " ");
        return Long.parseLong(line.substring(("added " + id + " ").length()));
    }

    private DataTransport transportOf(Membership m) {
        return transports.get(m.memberId());
    }

    private final Map<String, DataTransport> transports = new java.util.concurrent.ConcurrentHashMap<>();
}
