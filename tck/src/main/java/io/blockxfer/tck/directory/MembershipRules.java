package io.blockxfer.tck.directory;

import static io.blockxfer.tck.directory.DirectoryRules.B1;
import static io.blockxfer.tck.directory.DirectoryRules.B10;
import static io.blockxfer.tck.directory.DirectoryRules.B11;
import static io.blockxfer.tck.directory.DirectoryRules.B12;
import static io.blockxfer.tck.directory.DirectoryRules.B13;
import static io.blockxfer.tck.directory.DirectoryRules.B14;
import static io.blockxfer.tck.directory.DirectoryRules.B15;
import static io.blockxfer.tck.directory.DirectoryRules.B27;
import static io.blockxfer.tck.directory.DirectoryRules.B30;
import static io.blockxfer.tck.directory.DirectoryRules.B2;
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
import io.blockxfer.directory.DirectoryScope;
import io.blockxfer.directory.DirectoryUnavailableException;
import io.blockxfer.directory.MemberEntry;
import io.blockxfer.directory.Membership;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import io.blockxfer.directory.Refusal;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PollResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
/**
 * B1-B15, B27 and B30: a {@link io.blockxfer.directory.Membership} binding loopback transports to the directory:
 * joins, restarts, leaves and expiries reach the transports; bad entries are refused and never
 * reach them; lost leases, outages, throwing listeners, close and flapping members are handled;
 * entries are bound to their lease; a membership is not built on an unreachable directory (B27);
 * a member is left out while its registration is replaced (B30).
 * The members resolved on demand are {@link OnDemandRules}', a member's care of its own entry
 * {@link OwnEntryRules}'.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class MembershipRules extends MembershipRuleGroup {

    MembershipRules(DirectoryConformanceSuite suite) {
        super(suite);
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

    @DirectoryRuleTest(B27)
    public final void b27_noMembershipOnAnUnreachableDirectory() throws Exception {
        DirectoryFixture fx = fx();
        RecordingTransport t = new RecordingTransport(fx.transport(fx.agent("u")));
        String id = t.agentName();
        Directory client = fx.client();
        fx.deployment.cutOff(client);
        Duration limit = client.operationTimeout().plusSeconds(2);
        long start = System.nanoTime();
        var e = assertThrows(DirectoryUnavailableException.class, () -> fx.start(fx.builder(t, client, fx.log())),
                fx.msg("building a membership on an unreachable directory"));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertTrue(took.compareTo(limit) <= 0, fx.msg("building a membership on an unreachable directory took "
                + took.toMillis() + " ms, above its operation timeout of " + client.operationTimeout().toMillis()
                + " ms (+2 s)"));
        assertTrue(String.valueOf(e.getMessage()).contains(client.toString()), fx.msg("the error does not name the"
                + " directory '" + client + "': " + e.getMessage()));
        assertEquals(List.of(), t.calls(), fx.msg("a membership that could not be built registered peers"));
        fx.deployment.reconnect(client);
        Thread.sleep(fx.env.quiet().toMillis());
        assertEquals(List.of(), fx.watcher(DirectoryScope.member(id)).snapshot().entries(), fx.msg("a membership that"
                + " could not be built left an entry of " + id + " once the directory was back"));
        Membership m = fx.start(fx.builder(t, client, fx.log()));
        Node w = node("w");
        fx.awaitMember(w.membership(), id, m.epoch());
        fx.assertWriteLands(w.transport(), id, t, (byte) 27);
    }

    @DirectoryRuleTest(B30)
    public final void b30_aMemberIsLeftOutWhileItsRegistrationIsReplaced() throws Exception {
        DirectoryFixture fx = fx();
        Node a = node("a", builder -> builder.flapInterval(Duration.ZERO));
        DeploymentKeyRing ring = fx.ring();
        DataTransport first = fx.transport(fx.agent("b"));
        String id = first.agentName();
        Publication p1 = publishEntry(fx.client(), id, 1, first.localDescriptor(), ring);
        fx.awaitMember(a.membership(), id, 1);

        // its new epoch, while a's transport holds the registration: left out, not told updated
        a.transport().holdRegistrations();
        int mark = a.log().lines().size();
        int calls = a.transport().calls(id).size();
        first.close();
        DataTransport second = fx.transport(id);
        Publication p2 = publishEntry(fx.client(), id, 2, second.localDescriptor(), ring);
        awaitWithin(() -> a.transport().calls(id).size() > calls, fx.env.timeout(), () -> a.id() + " did not start"
                + " registering " + id + "'s new epoch: " + a.transport().calls(id));
        Thread.sleep(fx.env.quiet().toMillis()); // a registration reported in place early shows meanwhile
        assertFalse(a.membership().members().containsKey(id), fx.msg(a.id() + " holds " + id + " while its"
                + " registration of epoch 2 is still under way: " + a.membership().members()));
        assertFalse(a.log().lines().subList(mark, a.log().lines().size()).contains("updated " + id + " 2"),
                fx.msg(a.id() + " told " + id + " updated before its registration was in place: " + a.log().lines()));
        a.transport().letRegistrationsGo();
        fx.awaitMember(a.membership(), id, 2);
        a.log().await("updated " + id + " 2", fx.msg(a.id() + " did not tell " + id + " updated to epoch 2"));
        fx.assertWriteLands(a.transport(), id, second, (byte) 30);

        // deleted while its next registration runs: removed, the registration taken back, never updated
        a.transport().holdRegistrations();
        int before = a.transport().calls(id).size();
        second.close();
        DataTransport third = fx.transport(id);
        Publication p3 = publishEntry(fx.client(), id, 3, third.localDescriptor(), ring);
        awaitWithin(() -> a.transport().calls(id).size() > before, fx.env.timeout(), () -> a.id() + " did not start"
                + " registering " + id + "'s epoch 3: " + a.transport().calls(id));
        p3.close(); // its goodbye, while a's registration of it is under way
        a.log().await("removed " + id + " ", fx.msg(a.id() + " did not remove " + id + " after its goodbye"));
        a.transport().letRegistrationsGo();
        awaitWithin(() -> a.transport().calls(id).getLast().equals("remove " + id), fx.env.timeout(), () -> a.id()
                + " left its registration of " + id + " in the transport: " + a.transport().calls(id));
        Thread.sleep(fx.env.quiet().toMillis()); // the registration's late completion changes nothing
        assertTrue(a.transport().calls(id).getLast().equals("remove " + id) && a.transport().traffic(id).isEmpty(),
                fx.msg(id + " was registered in " + a.id() + "'s transport after its goodbye: "
                        + a.transport().calls(id)));
        assertFalse(a.membership().members().containsKey(id), fx.msg(a.id() + " holds " + id + " after its goodbye: "
                + a.membership().members()));
        assertFalse(a.log().lines().contains("updated " + id + " 3"), fx.msg(a.id() + " told " + id + " updated to"
                + " the epoch whose registration ran when it left: " + a.log().lines()));
        p1.close();
        p2.close();
        third.close();
    }
}
