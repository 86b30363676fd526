package io.blockxfer.tck.directory;

import static io.blockxfer.tck.directory.DirectoryRules.B1;
import static io.blockxfer.tck.directory.DirectoryRules.B10;
import static io.blockxfer.tck.directory.DirectoryRules.B11;
import static io.blockxfer.tck.directory.DirectoryRules.B12;
import static io.blockxfer.tck.directory.DirectoryRules.B13;
import static io.blockxfer.tck.directory.DirectoryRules.B14;
import static io.blockxfer.tck.directory.DirectoryRules.B15;
import static io.blockxfer.tck.directory.DirectoryRules.B16;
import static io.blockxfer.tck.directory.DirectoryRules.B17;
import static io.blockxfer.tck.directory.DirectoryRules.B18;
import static io.blockxfer.tck.directory.DirectoryRules.B19;
import static io.blockxfer.tck.directory.DirectoryRules.B2;
import static io.blockxfer.tck.directory.DirectoryRules.B20;
import static io.blockxfer.tck.directory.DirectoryRules.B21;
import static io.blockxfer.tck.directory.DirectoryRules.B3;
import static io.blockxfer.tck.directory.DirectoryRules.B4;
import static io.blockxfer.tck.directory.DirectoryRules.B5;
import static io.blockxfer.tck.directory.DirectoryRules.B6;
import static io.blockxfer.tck.directory.DirectoryRules.B7;
import static io.blockxfer.tck.directory.DirectoryRules.B8;
import static io.blockxfer.tck.directory.DirectoryRules.B9;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryEntry;
import io.blockxfer.directory.MemberEntry;
import io.blockxfer.directory.MemberResolutionException;
import io.blockxfer.directory.Membership;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import io.blockxfer.directory.Refusal;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PollResult;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * B: a {@link Membership} binding loopback transports to the directory: joins, restarts, leaves
 * and expiries reach the transports; bad entries are refused and never reach them; lost leases,
 * outages, throwing listeners, close and flapping members are handled; members resolved on demand
 * are registered once, refused with the reason, followed, and released only when idle; groups and
 * eager memberships mix in one prefix.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class MembershipRules extends DirectoryRuleGroup {

    MembershipRules(DirectoryConformanceSuite suite) {
        super(suite);
    }

    /** A member of a rule: its transport (recorded), its membership, what it heard, its client. */
    record Node(RecordingTransport transport, Membership membership, MemberLog log, Directory client) {
        String id() {
            return membership.memberId();
        }

        long epoch() {
            return membership.epoch();
        }
    }

    private Node node(String base) {
        return node(base, UnaryOperator.identity());
    }

    private Node node(String base, UnaryOperator<Membership.Builder> tweak) {
        DirectoryFixture fx = fx();
        RecordingTransport t = new RecordingTransport(fx.transport(fx.agent(base)));
        MemberLog log = fx.log();
        Directory client = fx.client();
        Membership m = fx.start(tweak.apply(fx.builder(t, client, log)));
        return new Node(t, m, log, client);
    }

    private static byte[] entry(String memberId, long epoch, PeerDescriptor d, @Nullable DeploymentKeyRing ring) {
        return MemberEntry.of(memberId, epoch, d).encode(ring);
    }

    /** Publishes a signed entry of {@code memberId} at {@code epoch} from {@code client}, made for its lease. */
    private static Publication publishEntry(Directory client, String memberId, long epoch, PeerDescriptor d,
            DeploymentKeyRing ring) {
        return client.publish(memberId, lease -> MemberEntry.of(memberId, epoch, lease, d).encode(ring),
                DirectoryFixture.TTL, PublicationListener.NONE);
    }

    private static DeploymentKeyRing randomRing(String keyId) {
        byte[] key = new byte[DeploymentKeyRing.MIN_KEY_BYTES];
        new SecureRandom().nextBytes(key);
        return DeploymentKeyRing.of(keyId, key);
    }

    /** Asserts that {@code node} refused an entry of {@code memberId} for {@code reason}. */
    private void assertRefused(Node node, String memberId, Refusal.Reason reason, String what) {
        DirectoryFixture fx = fx();
        assertTrue(node.log().refusals().stream().anyMatch(r -> r.memberId().equals(memberId) && r.reason() == reason),
                fx.msg(what + " was not refused as " + reason + "; refusals: " + node.log().refusals()));
    }

    /** Asserts that nothing about {@code peerIds} reached {@code node}'s transport. */
    private void assertNothingReached(Node node, String... peerIds) {
        DirectoryFixture fx = fx();
        for (String id : peerIds) {
            assertEquals(List.of(), node.transport().calls(id), fx.msg("a refused entry of '" + id + "' reached the"
                    + " transport"));
        }
    }

    /** A member joins; once {@code node} added it, every entry written before it was handled. */
    private Node joinAndWait(Node node) throws InterruptedException {
        Node marker = node("marker");
        fx().awaitMember(node.membership(), marker.id(), marker.epoch());
        return marker;
    }

    @DirectoryRuleTest(B1)
    public final void b1_join() throws Exception {
        DirectoryFixture fx = fx();
        List<Node> nodes = List.of(node("a"), node("b"), node("c"));
        for (int i = 0; i < nodes.size(); i++) {
            for (int j = 0; j < nodes.size(); j++) {
                if (i != j) {
                    fx.awaitMember(nodes.get(i).membership(), nodes.get(j).id(), nodes.get(j).epoch());
                }
            }
        }
        for (int i = 0; i < nodes.size(); i++) {
            for (int j = 0; j < nodes.size(); j++) {
                Node x = nodes.get(i);
                Node y = nodes.get(j);
                if (i != j) {
                    // members() shows a member once it is registered; the listener hears of it just after
                    fx.await(() -> x.log().count("added " + y.id() + " ") > 0,
                            () -> x.id() + " was not told of " + y.id() + "'s join: " + x.log().lines());
                    assertEquals(1, x.log().count("added " + y.id() + " "), fx.msg(x.id() + " was told of "
                            + y.id() + "'s join not once: " + x.log().lines()));
                }
            }
        }
        fx.assertWriteLands(nodes.get(0).transport(), nodes.get(1).id(), nodes.get(1).transport(), (byte) 1);
        fx.assertWriteLands(nodes.get(1).transport(), nodes.get(2).id(), nodes.get(2).transport(), (byte) 2);
        fx.assertWriteLands(nodes.get(2).transport(), nodes.get(0).id(), nodes.get(0).transport(), (byte) 3);
    }

    @DirectoryRuleTest(B2)
    public final void b2_restartWithANewEpoch() throws Exception {
        DirectoryFixture fx = fx();
        Node a = node("a");
        Node b = node("b");
        fx.awaitMember(a.membership(), b.id(), b.epoch());
        long first = b.epoch();
        b.membership().close();
        b.transport().close();
        DataTransport restarted = fx.transport(b.id());
        Membership again = fx.start(fx.builder(restarted, fx.client(), fx.log()));
        assertTrue(again.epoch() > first, fx.msg("the restart's epoch " + again.epoch() + " is not above " + first));
        fx.awaitMember(a.membership(), b.id(), again.epoch());
        fx.assertWriteLands(a.transport(), b.id(), restarted, (byte) 7);
    }

    @DirectoryRuleTest(B3)
    public final void b3_goodbyeRemoves() throws Exception {
        DirectoryFixture fx = fx();
        Node a = node("a");
        Node b = node("b");
        fx.awaitMember(a.membership(), b.id(), b.epoch());
        LoopbackStall.stall(b.transport(), true);
        try {
            long id = a.transport().writeBlocks(b.id(), new int[] {0}, new int[] {1});
            assertNotEquals(DataTransport.NOT_SUBMITTED, id, fx.msg("no transfer to " + b.id()));
            b.membership().close();
            a.log().await("removed " + b.id() + " ", fx.msg(a.id() + " did not remove " + b.id() + " after its"
                    + " goodbye"));
            List<Long> failed = new ArrayList<>();
            List<Long> done = new ArrayList<>();
            long end = System.nanoTime() + fx.env.timeout().toNanos();
            while (failed.size() + done.size() == 0 && System.nanoTime() - end < 0) {
                PollResult r = a.transport().pollAll();
                Arrays.stream(r.failed()).forEach(failed::add);
                Arrays.stream(r.done()).forEach(done::add);
                Thread.sleep(2);
            }
            long quietEnd = System.nanoTime() + fx.env.quiet().toNanos();
            while (System.nanoTime() - quietEnd < 0) {
                PollResult r = a.transport().pollAll();
                Arrays.stream(r.failed()).forEach(failed::add);
                Arrays.stream(r.done()).forEach(done::add);
                Thread.sleep(2);
            }
            assertEquals(List.of(id), failed, fx.msg("the transfer in flight to the removed member must be reported"
                    + " failed once (done: " + done + ")"));
            assertEquals(DataTransport.NOT_SUBMITTED, a.transport().writeBlocks(b.id(), new int[] {0}, new int[] {1}),
                    fx.msg("a transfer to a removed member was submitted"));
        } finally {
            LoopbackStall.stall(b.transport(), false);
        }
    }

    @DirectoryRuleTest(B4)
    public final void b4_expiryRemoves() throws Exception {
        DirectoryFixture fx = fx();
        Duration ttl = Duration.ofSeconds(4);
        Node a = node("a");
        Node b = node("b", builder -> builder.ttl(ttl));
        fx.awaitMember(a.membership(), b.id(), b.epoch());
        fx.deployment.crash(b.client());
        fx.deployment.elapse(ttl.plus(fx.deployment.expiryGrace()));
        a.log().await("removed " + b.id() + " ", fx.msg(a.id() + " did not remove " + b.id() + " after its lease of "
                + ttl.toSeconds() + " s expired"));
        assertEquals(DataTransport.NOT_SUBMITTED, a.transport().writeBlocks(b.id(), new int[] {0}, new int[] {1}),
                fx.msg("a transfer to an expired member was submitted"));
    }

    @DirectoryRuleTest(B5)
    public final void b5_authenticationRefusals() throws Exception {
        DirectoryFixture fx = fx();
        Node a = node("a");
        PeerDescriptor d = fx.transport(fx.agent("x")).localDescriptor();
        String prefix = a.client().prefix();
        DeploymentKeyRing ring = fx.ring();
        fx.deployment.putRaw(prefix + "f1", entry("f1", 5, d, randomRing("elsewhere")));
        fx.deployment.putRaw(prefix + "f2", entry("f2", 5, d, randomRing(ring.signingKeyId())));
        fx.deployment.putRaw(prefix + "f3", entry("f3", 5, d, null));
        fx.deployment.putRaw(prefix + "f4", entry("f4", 5, d.unsigned(), ring));
        joinAndWait(a);
        assertRefused(a, "f1", Refusal.Reason.UNKNOWN_KEY, "an entry signed with a key not in the ring");
        assertRefused(a, "f2", Refusal.Reason.BAD_MAC, "an entry signed with another key under the ring's key id");
        assertRefused(a, "f3", Refusal.Reason.UNSIGNED, "an unsigned entry");
        assertRefused(a, "f4", Refusal.Reason.UNSIGNED, "a signed entry holding an unsigned descriptor");
        assertNothingReached(a, "f1", "f2", "f3", "f4");
    }

    @DirectoryRuleTest(B6)
    public final void b6_malformedRefusals() throws Exception {
        DirectoryFixture fx = fx();
        Node a = node("a");
        PeerDescriptor d = fx.transport(fx.agent("x")).localDescriptor();
        String prefix = a.client().prefix();
        DeploymentKeyRing ring = fx.ring();
        fx.deployment.putRaw(prefix + "g1", "not an entry at all".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        fx.deployment.putRaw(prefix + "big", Arrays.copyOf(entry("big", 5, d, ring), 1 << 20));
        fx.deployment.putRaw(prefix + "n/x", entry("x", 5, d, ring));
        fx.deployment.putRaw(prefix + "i2", entry("i1", 5, d, ring));
        String sibling = prefix.substring(0, prefix.length() - 1) + "0/s1";
        fx.deployment.putRaw(sibling, entry("s1", 5, d, ring));
        try {
            joinAndWait(a);
            assertRefused(a, "g1", Refusal.Reason.MALFORMED, "garbage");
            assertRefused(a, "big", Refusal.Reason.OVERSIZED, "a 1 MiB value");
            assertTrue(a.log().refusals().stream().anyMatch(r -> r.reason() == Refusal.Reason.BAD_KEY
                    && r.key().endsWith("n/x")), fx.msg("a key below the prefix that names no member was not refused"
                    + " as BAD_KEY; refusals: " + a.log().refusals()));
            assertRefused(a, "i2", Refusal.Reason.ID_MISMATCH, "an entry of i1 under the key of i2");
            assertNothingReached(a, "g1", "big", "x", "n/x", "i1", "i2", "s1");
        } finally {
            fx.deployment.deleteRaw(sibling);
        }
    }

    @DirectoryRuleTest(B7)
    public final void b7_replayRefusals() throws Exception {
        DirectoryFixture fx = fx();
        Node a = node("a");
        Node b = node("b");
        fx.awaitMember(a.membership(), b.id(), b.epoch());
        String key = b.client().prefix() + b.id();
        byte[] first = valueOf(key);
        long firstEpoch = b.epoch();
        b.membership().close();
        Membership again = fx.start(fx.builder(b.transport(), fx.client(), fx.log()));
        fx.awaitMember(a.membership(), b.id(), again.epoch());
        fx.deployment.putRaw(key, first);
        a.log().await(l -> l.startsWith("refused STALE_EPOCH " + b.id() + " ") || l.startsWith("refused WRONG_LEASE "
                + b.id() + " "), fx.msg(a.id() + " did not refuse " + b.id() + "'s replayed entry of epoch "
                + firstEpoch));
        assertTrue(a.log().refusals().stream().anyMatch(r -> r.epoch() == firstEpoch), fx.msg("the refusal names"
                + " another epoch: " + a.log().refusals()));
        assertFalse(a.log().lines().contains("updated " + b.id() + " " + firstEpoch), fx.msg("the replayed entry was"
                + " registered"));
        // the member restores its entry over the replay; then it leaves, and its last entry is replayed
        fx.await(() -> a.membership().members().getOrDefault(b.id(), 0L) == again.epoch() && valueEpoch(key)
                == again.epoch(), () -> b.id() + " did not settle at epoch " + again.epoch());
        byte[] last = valueOf(key);
        long removedBefore = a.log().count("removed " + b.id() + " ");
        again.close();
        fx.await(() -> a.log().count("removed " + b.id() + " ") > removedBefore
                && !a.membership().members().containsKey(b.id()), () -> a.id() + " did not remove " + b.id()
                + " after its goodbye: " + a.log().lines());
        int callsBefore = a.transport().calls(b.id()).size();
        fx.deployment.putRaw(key, last);
        joinAndWait(a);
        assertTrue(a.log().refusals().stream().filter(r -> (r.reason() == Refusal.Reason.STALE_EPOCH
                || r.reason() == Refusal.Reason.WRONG_LEASE) && r.memberId().equals(b.id())).count() >= 2,
                fx.msg("the last entry of a member that left, written again, was not refused: "
                + a.log().refusals()));
        assertEquals(callsBefore, a.transport().calls(b.id()).size(), fx.msg("a replay reached the transport: "
                + a.transport().calls(b.id())));
        assertFalse(a.membership().members().containsKey(b.id()), fx.msg("a replay brought back a member that left"));
    }

    private byte[] valueOf(String key) throws InterruptedException {
        DirectoryEntry e = fx().watcher().snapshot().entries().stream().filter(x -> x.key().equals(key)).findFirst()
                .orElseThrow(() -> new AssertionError(fx().msg("no entry under " + key)));
        return e.value();
    }

    private long valueEpoch(String key) {
        try {
            return MemberEntry.decode(valueOf(key), null).epoch();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        } catch (RuntimeException | AssertionError e) {
            return -1;
        }
    }

    @DirectoryRuleTest(B8)
    public final void b8_incompatibleRefusals() throws Exception {
        DirectoryFixture fx = fx();
        Node a = node("a");
        DeploymentKeyRing ring = fx.ring();
        String prefix = a.client().prefix();
        PeerDescriptor longer = fx.transport(fx.agent("l"), DirectoryFixture.BLOCK_LENGTH * 2, Map.of())
                .localDescriptor();
        PeerDescriptor otherFields = fx.transport(fx.agent("f"), DirectoryFixture.BLOCK_LENGTH,
                Map.of("dtype", "fp8")).localDescriptor();
        PeerDescriptor d = fx.transport(fx.agent("x")).localDescriptor();
        PeerDescriptor otherBackend = new PeerDescriptor(d.backend() + "-other", d.fingerprint(), d.baseAddress(),
                d.numBlocks(), d.blockLength(), d.metadata()).signedWith(ring);
        fx.deployment.putRaw(prefix + "k1", entry("k1", 5, longer, ring));
        fx.deployment.putRaw(prefix + "k2", entry("k2", 5, otherFields, ring));
        fx.deployment.putRaw(prefix + "k3", entry("k3", 5, otherBackend, ring));
        joinAndWait(a);
        assertRefused(a, "k1", Refusal.Reason.INCOMPATIBLE, "another block length");
        assertRefused(a, "k2", Refusal.Reason.INCOMPATIBLE, "another config fingerprint");
        assertRefused(a, "k3", Refusal.Reason.INCOMPATIBLE, "another backend");
        List<String> messages = a.log().refusals().stream().map(Refusal::message).toList();
        for (String named : List.of("block length", "fingerprint", "backend")) {
            assertTrue(messages.stream().anyMatch(m -> m.contains(named)), fx.msg("no refusal names the " + named
                    + ": " + messages));
        }
        assertNothingReached(a, "k1", "k2", "k3");
    }

    @DirectoryRuleTest(B9)
    public final void b9_lostLeaseIsPublishedAgain() throws Exception {
        DirectoryFixture fx = fx();
        Node a = node("a");
        Node b = node("b");
        fx.awaitMember(a.membership(), b.id(), b.epoch());
        long first = b.epoch();
        fx.deployment.loseLease(b.id());
        b.log().await("lost " + first, fx.msg(b.id() + " did not say its lease was lost"));
        String published = b.log().await(l -> l.startsWith("published ") && !l.equals("published " + first),
                fx.msg(b.id() + " did not publish again after its lease was lost"));
        long second = Long.parseLong(published.substring("published ".length()));
        assertTrue(second > first, fx.msg("the new epoch " + second + " is not above " + first));
        List<String> lines = b.log().lines();
        assertTrue(lines.indexOf("lost " + first) < lines.indexOf(published), fx.msg("said in the wrong order: "
                + lines));
        fx.awaitMember(a.membership(), b.id(), second);
        fx.assertWriteLands(a.transport(), b.id(), b.transport(), (byte) 9);
    }

    @DirectoryRuleTest(B14)
    public final void b14_reRegistersTheMembersAfterItsOwnLeaseWasLost() throws Exception {
        DirectoryFixture fx = fx();
        Node a = node("a");
        Node b = node("b");
        Node c = node("c");
        fx.awaitMember(a.membership(), b.id(), b.epoch());
        fx.awaitMember(a.membership(), c.id(), c.epoch());
        c.membership().close();
        a.log().await("removed " + c.id() + " ", fx.msg(a.id() + " did not remove " + c.id() + " after its goodbye"));
        int bCalls = a.transport().calls(b.id()).size();
        int cCalls = a.transport().calls(c.id()).size();
        long first = a.epoch();
        fx.deployment.loseLease(a.id());
        a.log().await("lost " + first, fx.msg(a.id() + " did not say its lease was lost"));
        String again = "reregistered " + b.id() + " " + b.epoch();
        a.log().await(again, fx.msg(a.id() + " did not say it re-registered " + b.id() + " after its own lease was"
                + " lost"));
        joinAndWait(a);
        List<String> bAfter = a.transport().calls(b.id());
        assertEquals(List.of("add " + b.id()), bAfter.subList(bCalls, bAfter.size()), fx.msg(a.id() + " did not"
                + " re-add " + b.id() + " exactly once after its own lease was lost"));
        assertEquals(cCalls, a.transport().calls(c.id()).size(), fx.msg(a.id() + " re-added " + c.id()
                + ", which had left: " + a.transport().calls(c.id())));
        assertEquals(1, a.log().lines().stream().filter(again::equals).count(), fx.msg(a.id() + " reported the"
                + " re-registration of " + b.id() + " other than once: " + a.log().lines()));
        fx.assertWriteLands(a.transport(), b.id(), b.transport(), (byte) 11);
    }

    @DirectoryRuleTest(B10)
    public final void b10_outage() throws Exception {
        DirectoryFixture fx = fx();
        Node a = node("a");
        Node b = node("b");
        fx.awaitMember(a.membership(), b.id(), b.epoch());
        fx.deployment.cutOff(a.client());
        a.log().await("disconnected", fx.msg(a.id() + " was not told its directory was lost"));
        fx.assertWriteLands(a.transport(), b.id(), b.transport(), (byte) 4);
        b.membership().close();
        Node c = node("c");
        if (fx.deployment.faults().contains(DirectoryFault.COMPACTION)) {
            fx.deployment.compact();
        }
        fx.assertWriteLands(a.transport(), b.id(), b.transport(), (byte) 5);
        assertTrue(a.membership().members().containsKey(b.id()), fx.msg("a peer was removed while the directory was"
                + " unreachable"));
        fx.deployment.reconnect(a.client());
        fx.awaitMember(a.membership(), c.id(), c.epoch());
        a.log().await("removed " + b.id() + " ", fx.msg(a.id() + " did not remove " + b.id() + ", gone during the"
                + " outage"));
        joinAndWait(a);
        List<String> lines = a.log().lines();
        int back = lines.indexOf("resumed") >= 0 ? lines.indexOf("resumed") : lines.indexOf("resynced");
        int removed = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("removed " + b.id() + " ")) {
                removed = i;
            }
        }
        assertTrue(back >= 0 && removed > back, fx.msg(a.id() + " removed " + b.id() + " before its directory was"
                + " back: " + lines));
        assertEquals(1, a.log().count("added " + c.id() + " "), fx.msg("added twice: " + lines));
        assertEquals(1, a.log().count("removed " + b.id() + " "), fx.msg("removed twice: " + a.log().lines()));
        assertFalse(a.membership().members().containsKey(b.id()), fx.msg("members: " + a.membership().members()));
    }

    @DirectoryRuleTest(B11)
    public final void b11_throwingListener() throws Exception {
        DirectoryFixture fx = fx();
        MemberLog throwing = new MemberLog(fx.env.timeout()) {
            @Override
            synchronized void add(String line) {
                super.add(line);
                throw new IllegalStateException("a listener bug (thrown on purpose by the kit)");
            }
        };
        DataTransport t = fx.transport(fx.agent("a"));
        Membership a = fx.start(fx.builder(t, fx.client(), throwing));
        Node b = node("b");
        Node c = node("c");
        throwing.await("added " + b.id() + " ", fx.msg("a listener that threw was not told of " + b.id()));
        throwing.await("added " + c.id() + " ", fx.msg("a listener that threw was not told of " + c.id()));
        b.membership().close();
        throwing.await("removed " + b.id() + " ", fx.msg("a listener that threw was not told " + b.id() + " left"));
        assertEquals(Set.of(c.id()), a.members().keySet(), fx.msg("the membership stopped keeping its members"));
    }

    @DirectoryRuleTest(B12)
    public final void b12_argumentsAndClose() throws Exception {
        DirectoryFixture fx = fx();
        DataTransport t = fx.transport(fx.agent("a"));
        Directory client = fx.client();
        for (Duration ttl : List.of(Duration.ofSeconds(1), Duration.ofHours(2))) {
            var e = assertThrows(IllegalArgumentException.class, () -> Membership.builder(t, client).ttl(ttl),
                    fx.msg("a TTL of " + ttl + " was accepted"));
            assertTrue(String.valueOf(e.getMessage()).contains(ttl.toString()), fx.msg(String.valueOf(e.getMessage())));
        }
        var e = assertThrows(IllegalArgumentException.class, () -> Membership.builder(t, client).memberId("a/b"),
                fx.msg("member id 'a/b' was accepted"));
        assertTrue(String.valueOf(e.getMessage()).contains("a/b"), fx.msg(String.valueOf(e.getMessage())));
        DataTransport odd = fx.transport(fx.agent("odd#name"));
        e = assertThrows(IllegalArgumentException.class, () -> Membership.builder(odd, client).keyRing(fx.ring())
                .build(), fx.msg("an agent name that is no member id was accepted as one"));
        assertTrue(String.valueOf(e.getMessage()).contains(odd.agentName()), fx.msg(String.valueOf(e.getMessage())));
        Node a = node("a");
        Node b = node("b");
        fx.awaitMember(a.membership(), b.id(), b.epoch());
        fx.awaitMember(b.membership(), a.id(), a.epoch());
        long epoch = a.epoch();
        a.membership().close();
        a.membership().close();
        b.log().await("removed " + a.id() + " " + epoch, fx.msg(b.id() + " did not remove " + a.id()
                + " after its membership closed (no goodbye?)"));
        assertThrows(IllegalStateException.class, () -> a.membership().members(), fx.msg("members() after close"));
        assertThrows(IllegalStateException.class, () -> a.membership().epoch(), fx.msg("epoch() after close"));
        fx.assertWriteLands(a.transport(), b.id(), b.transport(), (byte) 6);
    }

    @DirectoryRuleTest(B13)
    public final void b13_flappingIsCoalesced() throws Exception {
        DirectoryFixture fx = fx();
        Duration interval = Duration.ofSeconds(2);
        Node a = node("a", builder -> builder.flapInterval(interval));
        DataTransport tb = fx.transport(fx.agent("b"));
        String id = tb.agentName();
        DeploymentKeyRing ring = fx.ring();
        Directory side = fx.client();
        Publication p = publishEntry(side, id, 1, tb.localDescriptor(), ring);
        fx.awaitMember(a.membership(), id, 1);
        int before = a.transport().calls(id).size();
        long start = System.nanoTime();
        for (long epoch = 2; epoch <= 11; epoch++) {
            p.close(); // the goodbye: a delete
            p = publishEntry(side, id, epoch, tb.localDescriptor(), ring);
        }
        fx.awaitMember(a.membership(), id, 11, interval);
        long took = System.nanoTime() - start;
        long changes = (long) a.transport().calls(id).size() - before;
        long allowed = 2 + took / interval.toNanos();
        assertTrue(changes <= allowed, fx.msg("a member flapping ten times in " + Duration.ofNanos(took).toMillis()
                + " ms changed " + changes + " times in the transport; at most " + allowed + " with a flap interval of "
                + interval.toSeconds() + " s: " + a.transport().calls(id)));
        fx.assertWriteLands(a.transport(), id, tb, (byte) 8);
    }

    @DirectoryRuleTest(B15)
    public final void b15_aLateStarterNeverSeesADepartedMember() throws Exception {
        DirectoryFixture fx = fx();
        Node a = node("a");
        Node b = node("b");
        fx.awaitMember(a.membership(), b.id(), b.epoch());
        String key = b.client().prefix() + b.id();
        fx.await(() -> valueEpoch(key) == b.epoch(), () -> b.id() + "'s entry is not in the directory");
        byte[] last = valueOf(key);
        long lastEpoch = b.epoch();
        b.membership().close();
        a.log().await("removed " + b.id() + " " + lastEpoch, fx.msg(a.id() + " did not remove " + b.id()
                + " after its goodbye"));
        int aCalls = a.transport().calls(b.id()).size();
        // written back without a lease, as a plain put of another tool would
        fx.deployment.putRaw(key, last);
        Node c = node("c");
        assertRefused(c, b.id(), Refusal.Reason.WRONG_LEASE, b.id() + "'s last entry written back without a lease,"
                + " seen by a member that started after " + b.id() + " left,");
        // written back under another client's live lease
        Directory writer = fx.client();
        writer.publish(b.id(), lease -> last, DirectoryFixture.TTL, PublicationListener.NONE);
        Node d = node("d");
        assertRefused(d, b.id(), Refusal.Reason.WRONG_LEASE, b.id() + "'s last entry written back under another"
                + " lease, seen by a member that started after " + b.id() + " left,");
        joinAndWait(c);
        for (Node n : List.of(c, d)) {
            assertFalse(n.membership().members().containsKey(b.id()), fx.msg(n.id() + ", started after " + b.id()
                    + " left, took it for a member: " + n.membership().members()));
            assertNothingReached(n, b.id());
            assertEquals(DataTransport.NOT_SUBMITTED, n.transport().writeBlocks(b.id(), new int[] {0}, new int[] {1}),
                    fx.msg(n.id() + " holds a peer " + b.id()));
        }
        assertTrue(a.log().refusals().stream().anyMatch(r -> r.memberId().equals(b.id())
                && r.reason() == Refusal.Reason.WRONG_LEASE), fx.msg(a.id() + " did not refuse " + b.id()
                + "'s entry written back: " + a.log().refusals()));
        assertEquals(aCalls, a.transport().calls(b.id()).size(), fx.msg("a copy of a departed member's entry reached"
                + " the transport of " + a.id() + ": " + a.transport().calls(b.id())));
        assertFalse(a.membership().members().containsKey(b.id()), fx.msg("a copy brought back a member that left"));
    }

    @DirectoryRuleTest(B16)
    public final void b16_anOverwrittenEntryIsRestoredUnderItsLease() throws Exception {
        DirectoryFixture fx = fx();
        Duration interval = Duration.ofSeconds(2);
        Node a = node("a", builder -> builder.flapInterval(interval));
        Node b = node("b");
        fx.awaitMember(a.membership(), b.id(), b.epoch());
        fx.awaitMember(b.membership(), a.id(), a.epoch());
        String key = b.client().prefix() + b.id();
        WatchLog watch = fx.watcher();
        fx.await(() -> held(watch, key).length > 0, () -> b.id() + "'s entry is not in the directory");
        byte[] own = held(watch, key);
        long lease = leaseOf(watch, key);
        long epoch = b.epoch();
        int aCalls = a.transport().calls(b.id()).size();
        int bCalls = b.transport().calls(a.id()).size();
        List<String> overwrites = List.of("garbage", "its own bytes without its lease", "a delete");
        for (int i = 0; i < overwrites.size(); i++) {
            long restoredBefore = b.log().count("restored " + epoch);
            switch (i) {
                case 0 -> fx.deployment.putRaw(key, "garbage".getBytes(java.nio.charset.StandardCharsets.UTF_8));
                case 1 -> fx.deployment.putRaw(key, own);
                default -> fx.deployment.deleteRaw(key);
            }
            String what = overwrites.get(i);
            fx.await(() -> b.log().count("restored " + epoch) > restoredBefore, () -> b.id() + " did not restore its"
                    + " entry after " + what + " (its log: " + b.log().lines() + ")", interval);
            fx.await(() -> Arrays.equals(own, held(watch, key)) && leaseOf(watch, key) == lease, () -> b.id() + "'s"
                    + " key does not hold its entry on its lease " + lease + " again after " + what + ": "
                    + watch.current(key), interval);
        }
        Thread.sleep(interval.toMillis() + fx.env.quiet().toMillis()); // a's held changes, if any, are applied
        joinAndWait(a);
        assertEquals(epoch, b.epoch(), fx.msg(b.id() + " published anew instead of restoring: " + b.log().lines()));
        assertFalse(b.log().lines().stream().anyMatch(l -> l.startsWith("lost ") || l.startsWith("reregistered ")),
                fx.msg(b.id() + " took an overwrite for a lost lease: " + b.log().lines()));
        assertEquals(1, b.log().count("published "), fx.msg(b.id() + " published more than once: "
                + b.log().lines()));
        assertEquals(bCalls, b.transport().calls(a.id()).size(), fx.msg(b.id() + " re-registered " + a.id() + ": "
                + b.transport().calls(a.id())));
        assertEquals(aCalls, a.transport().calls(b.id()).size(), fx.msg(a.id() + " changed " + b.id() + " in its"
                + " transport: " + a.transport().calls(b.id()) + "; its log: " + a.log().lines()));
        assertEquals(Long.valueOf(epoch), a.membership().members().get(b.id()), fx.msg(a.id() + " no longer holds "
                + b.id() + ": " + a.membership().members()));
        fx.assertWriteLands(a.transport(), b.id(), b.transport(), (byte) 12);
        fx.assertWriteLands(b.transport(), a.id(), a.transport(), (byte) 13);
    }

    // ------------------------------------------------------------------ members on demand

    /** Resolves {@code id} through {@code node} and returns its epoch, failing the rule when it does not. */
    private long resolved(Node node, String id) throws InterruptedException {
        DirectoryFixture fx = fx();
        CompletableFuture<Long> f = node.membership().resolve(id);
        try {
            return f.get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError(fx.msg(node.id() + " could not resolve " + id + ": " + e.getCause()),
                    e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError(fx.msg(node.id() + " did not resolve " + id + " within "
                    + fx.env.timeout().toMillis() + " ms; it holds " + node.membership().members()), e);
        }
    }

    /** Resolves {@code id} through {@code node}, which must fail, and returns why. */
    private MemberResolutionException resolutionFailure(Node node, String id, String what)
            throws InterruptedException {
        DirectoryFixture fx = fx();
        CompletableFuture<Long> f = node.membership().resolve(id);
        long epoch;
        try {
            epoch = f.get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof MemberResolutionException m) {
                assertEquals(id, m.memberId(), fx.msg("the failed resolution of " + what + " names another member"));
                return m;
            }
            throw new AssertionError(fx.msg("the resolution of " + what + " failed with " + e.getCause()
                    + ", not a MemberResolutionException"), e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError(fx.msg("the resolution of " + what + " did not end within "
                    + fx.env.timeout().toMillis() + " ms"), e);
        }
        throw new AssertionError(fx.msg(node.id() + " resolved " + what + " (epoch " + epoch + "); its transport: "
                + node.transport().calls(id)));
    }

    /** Waits up to {@code limit} (not the rule timeout) for {@code condition}. */
    private void awaitWithin(BooleanSupplier condition, Duration limit, Supplier<String> what)
            throws InterruptedException {
        long end = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError(fx().msg(what.get() + " within " + limit.toMillis() + " ms"));
            }
            Thread.sleep(5);
        }
    }

    /** Lets the held members' traffic be sampled once more (a membership samples it every second). */
    private static void letTrafficBeSampled() throws InterruptedException {
        Thread.sleep(1_500);
    }

    @DirectoryRuleTest(B17)
    public final void b17_resolvedOnDemandAndOnce() throws Exception {
        DirectoryFixture fx = fx();
        Node a = node("a", builder -> builder.followNone());
        Node b = node("b");
        fx.awaitMember(b.membership(), a.id(), a.epoch()); // b follows every member: the news has spread
        Thread.sleep(fx.env.quiet().toMillis());
        assertEquals(List.of(), a.transport().calls(b.id()), fx.msg(a.id() + ", which follows no member, registered "
                + b.id() + " before it resolved it"));
        assertEquals(Map.of(), a.membership().members(), fx.msg(a.id() + " holds members it never resolved"));
        int callers = 8;
        CountDownLatch go = new CountDownLatch(1);
        List<CompletableFuture<Long>> futures = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                futures.add(a.membership().resolve(b.id()));
            }));
        }
        go.countDown();
        for (Thread t : threads) {
            t.join(fx.env.timeout().toMillis());
        }
        List<Long> epochs = new ArrayList<>();
        for (CompletableFuture<Long> f : List.copyOf(futures)) {
            try {
                epochs.add(f.get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS));
            } catch (ExecutionException e) {
                throw new AssertionError(fx.msg(a.id() + " could not resolve " + b.id() + ": " + e.getCause()),
                        e.getCause());
            }
        }
        assertEquals(Collections.nCopies(callers, b.epoch()), epochs, fx.msg(callers + " concurrent"
                + " resolutions of " + b.id() + " did not all complete with its epoch " + b.epoch()));
        assertEquals(Long.valueOf(b.epoch()), a.membership().members().get(b.id()), fx.msg(a.id() + " resolved "
                + b.id() + " but does not hold it: " + a.membership().members()));
        a.log().await("added " + b.id() + " ", fx.msg(a.id() + " was not told it added " + b.id()));
        assertEquals(b.epoch(), resolved(a, b.id()), fx.msg("resolving a member held already gave another epoch"));
        Thread.sleep(fx.env.quiet().toMillis());
        assertEquals(List.of("add " + b.id()), a.transport().calls(b.id()), fx.msg(callers + 1 + " resolutions of "
                + b.id() + " registered it other than once"));
        assertEquals(1, a.log().count("added " + b.id() + " "), fx.msg(a.id() + " was told of " + b.id()
                + " other than once: " + a.log().lines()));
        fx.assertWriteLands(a.transport(), b.id(), b.transport(), (byte) 17);
        // a member that joins now is still nothing to a
        Node c = node("c");
        fx.awaitMember(b.membership(), c.id(), c.epoch());
        Thread.sleep(fx.env.quiet().toMillis());
        assertEquals(List.of(), a.transport().calls(c.id()), fx.msg(c.id() + ", which joined after " + a.id()
                + " resolved " + b.id() + ", reached " + a.id() + "'s transport unresolved"));
        assertEquals(Set.of(b.id()), a.membership().members().keySet(), fx.msg(a.id() + " holds members it never"
                + " resolved"));
    }

    @DirectoryRuleTest(B18)
    public final void b18_resolutionRefusedWithItsReason() throws Exception {
        DirectoryFixture fx = fx();
        Node a = node("a", builder -> builder.followNone());
        String prefix = a.client().prefix();
        PeerDescriptor d = fx.transport(fx.agent("x")).localDescriptor();
        MemberResolutionException absent = resolutionFailure(a, "nobody", "a member with no entry");
        assertEquals(MemberResolutionException.Reason.NO_SUCH_MEMBER, absent.reason(), fx.msg("a member with no"
                + " entry: " + absent));
        fx.deployment.putRaw(prefix + "r1", entry("r1", 5, d, randomRing("elsewhere")));
        fx.deployment.putRaw(prefix + "r2", MemberEntry.of("r2", 5, 0x1234L, d).encode(fx.ring()));
        for (Map.Entry<String, Refusal.Reason> expected : List.of(Map.entry("r1", Refusal.Reason.UNKNOWN_KEY),
                Map.entry("r2", Refusal.Reason.WRONG_LEASE))) {
            String id = expected.getKey();
            String what = "a member whose entry is refused as " + expected.getValue();
            MemberResolutionException e = resolutionFailure(a, id, what);
            assertEquals(MemberResolutionException.Reason.REFUSED, e.reason(), fx.msg(what + ": " + e));
            Refusal r = e.refusal().orElseThrow(() -> new AssertionError(fx.msg(what + ": the failure carries no"
                    + " refusal: " + e)));
            assertEquals(expected.getValue(), r.reason(), fx.msg(what + ": the failure names another reason: " + r));
            assertEquals(id, r.memberId(), fx.msg(what + ": the refusal names another member: " + r));
            assertRefused(a, id, expected.getValue(), what);
        }
        assertNothingReached(a, "nobody", "r1", "r2");
        assertEquals(Map.of(), a.membership().members(), fx.msg(a.id() + " holds members after failed resolutions"));
    }

    @DirectoryRuleTest(B19)
    public final void b19_aResolvedMemberIsFollowed() throws Exception {
        DirectoryFixture fx = fx();
        Node a = node("a", builder -> builder.followNone());
        DataTransport tb = fx.transport(fx.agent("b"));
        String id = tb.agentName();
        DeploymentKeyRing ring = fx.ring();
        publishEntry(fx.client(), id, 1, tb.localDescriptor(), ring);
        assertEquals(1, resolved(a, id), fx.msg("the resolution of " + id + " gave another epoch"));
        // a new epoch, published by another client over the first: the member restarted elsewhere
        Publication second = publishEntry(fx.client(), id, 2, tb.localDescriptor(), ring);
        fx.awaitMember(a.membership(), id, 2);
        assertEquals(List.of("add " + id, "add " + id), a.transport().calls(id), fx.msg(a.id() + " did not re-add"
                + " the resolved member " + id + " once for its new epoch"));
        fx.assertWriteLands(a.transport(), id, tb, (byte) 19);
        second.close(); // the goodbye
        a.log().await("removed " + id + " 2", fx.msg(a.id() + " did not remove the resolved member " + id
                + " after its goodbye"));
        assertEquals("remove " + id, a.transport().calls(id).getLast(), fx.msg(a.id() + "'s transport still holds "
                + id + ": " + a.transport().calls(id)));
        assertEquals(DataTransport.NOT_SUBMITTED, a.transport().writeBlocks(id, new int[] {0}, new int[] {1}),
                fx.msg("a transfer to a resolved member that said goodbye was submitted"));
        // an expired lease
        Duration ttl = Duration.ofSeconds(4);
        Node c = node("c", builder -> builder.ttl(ttl));
        assertEquals(c.epoch(), resolved(a, c.id()), fx.msg("the resolution of " + c.id() + " gave another epoch"));
        fx.deployment.crash(c.client());
        fx.deployment.elapse(ttl.plus(fx.deployment.expiryGrace()));
        awaitWithin(() -> a.log().count("removed " + c.id() + " ") > 0, Duration.ofSeconds(1), () -> a.id()
                + " did not remove the resolved member " + c.id() + " after its lease of " + ttl.toSeconds()
                + " s expired (expiry grace " + fx.deployment.expiryGrace().toMillis() + " ms): " + a.log().lines());
        assertEquals(DataTransport.NOT_SUBMITTED, a.transport().writeBlocks(c.id(), new int[] {0}, new int[] {1}),
                fx.msg("a transfer to a resolved member whose lease expired was submitted"));
        assertEquals(Map.of(), a.membership().members(), fx.msg(a.id() + " holds members that left"));
    }

    @DirectoryRuleTest(B20)
    public final void b20_releasedAtTheLimitOnlyWhenIdle() throws Exception {
        DirectoryFixture fx = fx();
        Node a = node("a", builder -> builder.followNone().maxHeld(2));
        Node b = node("b");
        Node c = node("c");
        Node d = node("d");
        resolved(a, b.id());
        resolved(a, c.id());
        Thread.sleep(fx.env.quiet().toMillis());
        assertEquals(Set.of(b.id(), c.id()), a.membership().members().keySet(), fx.msg(a.id() + ", limited to 2,"
                + " does not hold the 2 members it resolved: " + a.log().lines()));
        assertEquals(0, a.log().count("released "), fx.msg(a.id() + " released a member before its limit of 2: "
                + a.log().lines()));
        letTrafficBeSampled();
        fx.assertWriteLands(a.transport(), b.id(), b.transport(), (byte) 20); // b is used, c idle since resolved
        resolved(a, d.id());
        a.log().await("released " + c.id() + " ", fx.msg(a.id() + " did not release " + c.id() + ", idle longest,"
                + " when a third member passed its limit of 2"));
        assertEquals(0, a.log().count("released " + b.id() + " "), fx.msg(a.id() + " released " + b.id()
                + ", which it had just used: " + a.log().lines()));
        assertEquals(Set.of(b.id(), d.id()), a.membership().members().keySet(), fx.msg(a.id() + " holds the wrong"
                + " members after a release"));
        assertEquals("remove " + c.id(), a.transport().calls(c.id()).getLast(), fx.msg(a.id() + "'s transport still"
                + " holds " + c.id() + ", released: " + a.transport().calls(c.id())));
        assertEquals(DataTransport.NOT_SUBMITTED, a.transport().writeBlocks(c.id(), new int[] {0}, new int[] {1}),
                fx.msg("a transfer to a released member was submitted"));
        // d gets a transfer that stays in flight, and is used before b: idle longer, but busy
        long stuck;
        LoopbackStall.stall(d.transport(), true);
        try {
            stuck = a.transport().writeBlocks(d.id(), new int[] {0}, new int[] {1});
            assertNotEquals(DataTransport.NOT_SUBMITTED, stuck, fx.msg("no transfer to " + d.id()));
            letTrafficBeSampled();
            fx.assertWriteLands(a.transport(), b.id(), b.transport(), (byte) 21);
            long releases = a.log().count("released ");
            resolved(a, c.id());
            fx.await(() -> a.log().count("released ") > releases, () -> a.id() + " released no member when " + c.id()
                    + " passed its limit of 2 again: " + a.log().lines());
            assertEquals(0, a.log().count("released " + d.id() + " "), fx.msg(a.id() + " released " + d.id()
                    + " while a transfer to it was in flight: " + a.log().lines()));
            assertEquals(1, a.log().count("released " + b.id() + " "), fx.msg(a.id() + " did not release " + b.id()
                    + ", its only idle member, when " + c.id() + " passed its limit of 2 again: " + a.log().lines()));
            assertEquals(Set.of(c.id(), d.id()), a.membership().members().keySet(), fx.msg(a.id() + " holds the"
                    + " wrong members after a release"));
        } finally {
            LoopbackStall.stall(d.transport(), false);
        }
        List<Long> done = new ArrayList<>();
        List<Long> failed = new ArrayList<>();
        long end = System.nanoTime() + fx.env.timeout().toNanos();
        while (done.size() + failed.size() == 0 && System.nanoTime() - end < 0) {
            PollResult r = a.transport().poll(d.id());
            Arrays.stream(r.done()).forEach(done::add);
            Arrays.stream(r.failed()).forEach(failed::add);
            Thread.sleep(2);
        }
        assertEquals(List.of(stuck), done, fx.msg("the transfer held in flight to " + d.id() + " did not end done"
                + " (failed: " + failed + ")"));
        // release, then resolve again
        assertTrue(a.membership().release(d.id()), fx.msg("release of " + d.id() + ", held, answered false"));
        a.log().await("released " + d.id() + " ", fx.msg(a.id() + " did not say it released " + d.id()));
        assertFalse(a.membership().members().containsKey(d.id()), fx.msg(a.id() + " holds " + d.id()
                + " after releasing it"));
        assertEquals("remove " + d.id(), a.transport().calls(d.id()).getLast(), fx.msg(a.id() + "'s transport still"
                + " holds " + d.id() + ", released: " + a.transport().calls(d.id())));
        assertFalse(a.membership().release(b.id()), fx.msg("release of " + b.id() + ", released already, answered"
                + " true"));
        assertEquals(d.epoch(), resolved(a, d.id()), fx.msg("resolving a released member again gave another epoch"));
        fx.assertWriteLands(a.transport(), d.id(), d.transport(), (byte) 22);
    }

    @DirectoryRuleTest(B21)
    public final void b21_groupsAndEagerMembersMix() throws Exception {
        DirectoryFixture fx = fx();
        Node a = node("a", builder -> builder.followGroups("decode"));
        Node d1 = node("d", builder -> builder.group("decode"));
        Node p = node("p", builder -> builder.group("prefill"));
        Node e = node("e");
        Node d2 = node("d", builder -> builder.group("decode"));
        fx.awaitMember(a.membership(), d1.id(), d1.epoch());
        fx.awaitMember(a.membership(), d2.id(), d2.epoch());
        for (Node x : List.of(a, d1, p, d2)) {
            fx.awaitMember(e.membership(), x.id(), x.epoch());
        }
        Thread.sleep(fx.env.quiet().toMillis());
        assertEquals(Set.of(d1.id(), d2.id()), a.membership().members().keySet(), fx.msg(a.id() + ", which follows"
                + " group decode, does not hold exactly its members"));
        assertNothingReached(a, p.id(), e.id());
        for (Node x : List.of(d1, d2)) {
            assertEquals(List.of("add " + x.id()), a.transport().calls(x.id()), fx.msg(a.id() + " did not register "
                    + x.id() + " of group decode once"));
            assertEquals(1, a.log().count("added " + x.id() + " "), fx.msg(a.id() + " was told of " + x.id()
                    + " other than once: " + a.log().lines()));
        }
        for (Node x : List.of(a, d1, p, d2)) {
            assertEquals(List.of("add " + x.id()), e.transport().calls(x.id()), fx.msg(e.id() + ", which follows every"
                    + " member, did not register " + x.id() + " once"));
            assertEquals(1, e.log().count("added " + x.id() + " "), fx.msg(e.id() + " was told of " + x.id()
                    + " other than once: " + e.log().lines()));
        }
        assertEquals(List.of(), e.log().refusals(), fx.msg(e.id() + " refused entries of grouped members"));
        fx.assertWriteLands(a.transport(), d1.id(), d1.transport(), (byte) 23);
        fx.assertWriteLands(e.transport(), d2.id(), d2.transport(), (byte) 24);
        fx.assertWriteLands(d1.transport(), a.id(), a.transport(), (byte) 25);
        assertEquals(p.epoch(), resolved(a, p.id()), fx.msg("the resolution of " + p.id() + " of another group gave"
                + " another epoch"));
        fx.assertWriteLands(a.transport(), p.id(), p.transport(), (byte) 26);
    }

    /** The value {@code watch} holds for {@code key} now; empty when none. */
    private static byte[] held(WatchLog watch, String key) {
        DirectoryEntry e = watch.current(key);
        return e == null ? new byte[0] : e.value();
    }

    /** The lease {@code watch} reports for {@code key} now; 0 when none. */
    private static long leaseOf(WatchLog watch, String key) {
        DirectoryEntry e = watch.current(key);
        return e == null ? 0 : e.lease();
    }
}
