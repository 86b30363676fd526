package io.blockxfer.tck.directory;

import static io.blockxfer.tck.directory.DirectoryRules.B17;
import static io.blockxfer.tck.directory.DirectoryRules.B18;
import static io.blockxfer.tck.directory.DirectoryRules.B19;
import static io.blockxfer.tck.directory.DirectoryRules.B21;
import static io.blockxfer.tck.directory.DirectoryRules.B22;
import static io.blockxfer.tck.directory.DirectoryRules.B23;
import static io.blockxfer.tck.directory.DirectoryRules.B24;
import static io.blockxfer.tck.directory.DirectoryRules.B25;
import static io.blockxfer.tck.directory.DirectoryRules.B26;
import static io.blockxfer.tck.directory.DirectoryRules.B28;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryScope;
import io.blockxfer.directory.MemberEntry;
import io.blockxfer.directory.MemberResolutionException;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.Refusal;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerRegistrationException;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PollResult;
import java.nio.charset.StandardCharsets;
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

/**
 * B17-B19, B21-B26 and B28: members on demand and groups: a membership resolves a member when it
 * needs it, holds it once, follows it until it leaves and no longer (its limit on members held is
 * {@link HeldSetRules}'); groups and
 * eager memberships mix in one prefix; a delete seen through one watch never removes a member held
 * through another; a process whose member id another process took with a newer epoch stops
 * publishing its own; a resolution that times out, is released or is closed under way fails
 * with that reason and leaves nothing behind; and a released member's highest epoch is remembered.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class OnDemandRules extends MembershipRuleGroup {

    OnDemandRules(DirectoryConformanceSuite suite) {
        super(suite);
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

    @DirectoryRuleTest(B22)
    public final void b22_aDeleteOfAKeyThatNeverHeldTheMemberRemovesNothing() throws Exception {
        DirectoryFixture fx = fx();
        Node a = node("a", builder -> builder.group("decode").followGroups("decode"));
        Node g = node("g", builder -> builder.group("prefill"));
        assertEquals(g.epoch(), resolved(a, g.id()), fx.msg("the resolution of " + g.id() + " gave another epoch"));
        String prefix = a.client().prefix();
        byte[] genuine = held(fx.watcher(DirectoryScope.member(g.id())), prefix + g.id());
        // a writer without the key: the member's own entry under the key of a group it is not in, then its delete
        String foreign = DirectoryScope.groupKey(prefix, "decode", g.id());
        fx.deployment.putRaw(foreign, genuine);
        fx.await(() -> refusedUnder(a, foreign, Refusal.Reason.ID_MISMATCH), () -> a.id() + " did not refuse "
                + g.id() + "'s entry under " + foreign + " as ID_MISMATCH: " + a.log().refusals());
        fx.deployment.deleteRaw(foreign);
        // a value after the delete on the same watch: once it is refused, the delete was handled
        String marker = DirectoryScope.groupKey(prefix, "decode", "marker");
        fx.deployment.putRaw(marker, "not an entry".getBytes(StandardCharsets.US_ASCII));
        fx.await(() -> refusedUnder(a, marker, Refusal.Reason.MALFORMED), () -> a.id() + " did not refuse the value"
                + " under " + marker + ": " + a.log().refusals());
        Thread.sleep(fx.env.quiet().toMillis());
        assertEquals(Long.valueOf(g.epoch()), a.membership().members().get(g.id()), fx.msg(a.id() + " no longer"
                + " holds " + g.id() + " after a delete of " + foreign + ", a key that never held its entry; its own"
                + " keys never changed: " + a.log().lines()));
        assertEquals(List.of("add " + g.id()), a.transport().calls(g.id()), fx.msg(a.id() + " changed " + g.id()
                + " in its transport after a delete of another group's key"));
        assertEquals(0, a.log().count("removed " + g.id() + " "), fx.msg(a.id() + " reported " + g.id()
                + " removed: " + a.log().lines()));
        CompletableFuture<Long> again = a.membership().resolve(g.id());
        try {
            assertEquals(g.epoch(), again.get(fx.env.quiet().toMillis(), TimeUnit.MILLISECONDS), fx.msg("a"
                    + " resolution of " + g.id() + ", held, gave another epoch"));
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError(fx.msg(a.id() + " holds " + g.id() + ", but its resolution did not complete at"
                    + " once: " + e), e);
        }
        fx.assertWriteLands(a.transport(), g.id(), g.transport(), (byte) 27);
    }

    private static boolean refusedUnder(Node node, String key, Refusal.Reason reason) {
        return node.log().refusals().stream().anyMatch(r -> r.key().equals(key) && r.reason() == reason);
    }

    @DirectoryRuleTest(B23)
    public final void b23_aResolutionEndsWithItsMembersRegistration() throws Exception {
        DirectoryFixture fx = fx();
        // a resolution left waiting would end only at this timeout, long after the rule's
        Node a = node("a", builder -> builder.followNone().resolveTimeout(Duration.ofMinutes(10)));
        Node b = node("b");
        String id = b.id();
        long first = resolved(a, id);
        b.membership().close(); // the goodbye
        a.log().await("removed " + id + " " + first, fx.msg(a.id() + " did not remove " + id + " after its goodbye"));
        MemberResolutionException gone = resolutionFailure(a, id, "a resolved member that left");
        assertEquals(MemberResolutionException.Reason.NO_SUCH_MEMBER, gone.reason(), fx.msg("resolving a member"
                + " that left: " + gone));
        // it comes back under its id: nothing of it reaches a until a resolves it again
        Node back = node("b", builder -> builder.memberId(id));
        Node watcher = node("w"); // follows every member: once it holds the member back, the news has spread
        fx.awaitMember(watcher.membership(), id, back.epoch());
        Thread.sleep(fx.env.quiet().toMillis());
        assertEquals(List.of("add " + id, "remove " + id), a.transport().calls(id), fx.msg(a.id() + " followed "
                + id + " after it had left: its resolution outlived the member's registration"));
        assertFalse(a.membership().members().containsKey(id), fx.msg(a.id() + " holds " + id + ", which it did not"
                + " resolve again"));
        assertEquals(back.epoch(), resolved(a, id), fx.msg("resolving the member that came back gave another epoch"));
        fx.assertWriteLands(a.transport(), id, back.transport(), (byte) 28);
    }

    @DirectoryRuleTest(B24)
    public final void b24_aProcessWhoseIdANewerProcessTookStopsPublishing() throws Exception {
        DirectoryFixture fx = fx();
        Node older = node("t", builder -> builder.followNone());
        String id = older.id();
        Node newer = node("t", builder -> builder.memberId(id).followNone());
        long newerEpoch = newer.epoch();
        assertTrue(newerEpoch > older.epoch(), fx.msg("a process started under a member id in use published at"
                + " epoch " + newerEpoch + ", not above the older one's " + older.epoch()));
        older.log().await("superseded " + older.epoch() + " " + newerEpoch, fx.msg(older.id() + " was not told that"
                + " a newer process took its member id"));
        Node reader = node("r", builder -> builder.followNone());
        assertEquals(newerEpoch, resolved(reader, id), fx.msg("a fresh resolver found another epoch of " + id
                + " than the newer process's"));
        newer.membership().close(); // the newer process leaves: the older one must not take the id back
        reader.log().await("removed " + id + " " + newerEpoch, fx.msg(reader.id() + " did not remove " + id
                + " after the newer process's goodbye"));
        Thread.sleep(fx.env.quiet().toMillis());
        WatchLog key = fx.watcher(DirectoryScope.member(id));
        assertEquals(List.of(), key.snapshot().entries(), fx.msg("the older process, superseded, wrote its entry"
                + " again after the newer one left: " + older.log().lines()));
        MemberResolutionException gone = resolutionFailure(node("s", builder -> builder.followNone()), id,
                "a member id whose newer process left");
        assertEquals(MemberResolutionException.Reason.NO_SUCH_MEMBER, gone.reason(), fx.msg("a fresh resolver found"
                + " the superseded process: " + gone));
        assertEquals(1, older.log().count("published "), fx.msg(older.id() + ", superseded, published again: "
                + older.log().lines()));
    }

    @DirectoryRuleTest(B25)
    public final void b25_aResolutionThatCannotFinishFailsAndLeavesNothing() throws Exception {
        DirectoryFixture fx = fx();
        Duration limit = Duration.ofMillis(800);
        Node a = node("a", builder -> builder.followNone().resolveTimeout(limit));
        Node b = node("b");
        String id = b.id();

        // its registration held past the resolve timeout: TIMEOUT, and the registration taken back
        a.transport().holdRegistrations();
        int mark = a.log().lines().size();
        long start = System.nanoTime();
        MemberResolutionException late = resolutionFailure(a, id, "a member whose registration is held past the"
                + " resolve timeout");
        long took = System.nanoTime() - start;
        assertEquals(MemberResolutionException.Reason.TIMEOUT, late.reason(), fx.msg("a resolution whose registration"
                + " outlived the resolve timeout of " + limit.toMillis() + " ms: " + late));
        assertTrue(took >= limit.toNanos(), fx.msg("the resolution timed out after " + took / 1_000_000 + " ms, before"
                + " its resolve timeout of " + limit.toMillis() + " ms"));
        assertLeftNothing(a, id, mark, "a resolution that timed out");

        // resolving it again works, and a resolution released under way fails as RELEASED
        assertEquals(b.epoch(), resolved(a, id), fx.msg("resolving again after a timeout gave another epoch"));
        fx.assertWriteLands(a.transport(), id, b.transport(), (byte) 31);
        assertTrue(a.membership().release(id), fx.msg(a.id() + " did not hold the member it resolved"));
        awaitWithin(() -> a.transport().traffic(id).isEmpty(), fx.env.timeout(), () -> a.id() + " did not remove"
                + " the member it released from its transport");
        a.transport().holdRegistrations();
        mark = a.log().lines().size();
        CompletableFuture<Long> released = a.membership().resolve(id);
        awaitWithin(() -> a.transport().calls(id).size() == 5, fx.env.timeout(), () -> a.id() + " did not start"
                + " registering " + id + " again: " + a.transport().calls(id));
        assertTrue(a.membership().release(id), fx.msg("release(" + id + ") while its resolution was under way"
                + " found nothing to release"));
        assertFailsAs(released, MemberResolutionException.Reason.RELEASED, "a resolution released under way");
        assertLeftNothing(a, id, mark, "a resolution released under way");

        // one under way when the membership closes fails as CLOSED
        a.transport().holdRegistrations();
        CompletableFuture<Long> closed = a.membership().resolve(id);
        awaitWithin(() -> a.transport().calls(id).size() == 7, fx.env.timeout(), () -> a.id() + " did not start"
                + " registering " + id + " again: " + a.transport().calls(id));
        a.membership().close();
        assertFailsAs(closed, MemberResolutionException.Reason.CLOSED, "a resolution under way at close");
        a.transport().letRegistrationsGo();

        // its registration refused by the transport: REGISTRATION_FAILED with the transport's cause,
        // before the resolve timeout, leaving nothing; resolving again works once the transport takes it
        Node c = node("c", builder -> builder.followNone().resolveTimeout(limit));
        c.transport().refuseRegistrations(true);
        start = System.nanoTime();
        MemberResolutionException refused = resolutionFailure(c, id, "a member whose registration the transport"
                + " refuses");
        took = System.nanoTime() - start;
        assertEquals(MemberResolutionException.Reason.REGISTRATION_FAILED, refused.reason(), fx.msg("a resolution"
                + " whose registration the transport refused: " + refused));
        assertTrue(refused.getCause() instanceof PeerRegistrationException, fx.msg("the failure carries the"
                + " transport's cause: " + refused.getCause()));
        assertTrue(took < limit.toNanos(), fx.msg("the refused registration failed its resolution only after "
                + took / 1_000_000 + " ms, at or past the resolve timeout of " + limit.toMillis() + " ms"));
        assertFalse(c.membership().members().containsKey(id), fx.msg("a resolution whose registration failed left "
                + id + " among the members: " + c.membership().members().keySet()));
        assertTrue(c.transport().traffic(id).isEmpty(), fx.msg("a resolution whose registration failed left " + id
                + " registered in the transport"));
        c.transport().refuseRegistrations(false);
        assertEquals(b.epoch(), resolved(c, id), fx.msg("resolving again after a refused registration gave another"
                + " epoch"));
        fx.assertWriteLands(c.transport(), id, b.transport(), (byte) 32);
    }

    @DirectoryRuleTest(B26)
    public final void b26_aReleasedMemberKeepsItsHighestEpoch() throws Exception {
        DirectoryFixture fx = fx();
        Node a = node("a", builder -> builder.followNone());
        DataTransport tb = fx.transport(fx.agent("b"));
        String id = tb.agentName();
        DeploymentKeyRing ring = fx.ring();
        Publication second = publishEntry(fx.client(), id, 2, tb.localDescriptor(), ring);
        assertEquals(2, resolved(a, id), fx.msg("the resolution of " + id + " gave another epoch"));
        assertTrue(a.membership().release(id), fx.msg(a.id() + " did not hold the member it resolved"));
        awaitWithin(() -> a.transport().traffic(id).isEmpty(), fx.env.timeout(), () -> a.id() + " did not remove"
                + " the member it released from its transport");
        second.close(); // its goodbye: then an older entry of it is written under its key
        Publication older = publishEntry(fx.client(), id, 1, tb.localDescriptor(), ring);
        List<String> before = a.transport().calls(id);
        MemberResolutionException stale = resolutionFailure(a, id, "an older entry of a released member");
        Refusal r = stale.refusal().orElseThrow(() -> new AssertionError(fx.msg("resolving an older entry of a"
                + " released member failed as " + stale.reason() + " without a refusal: " + stale)));
        assertEquals(Refusal.Reason.STALE_EPOCH, r.reason(), fx.msg("an entry of epoch 1 of " + id + ", released at"
                + " epoch 2, was refused for another reason: " + r));
        assertEquals(before, a.transport().calls(id), fx.msg("the older entry of the released " + id + " reached the"
                + " transport"));
        older.close();
        Publication third = publishEntry(fx.client(), id, 3, tb.localDescriptor(), ring);
        assertEquals(3, resolved(a, id), fx.msg("a newer entry of the released member was not resolved"));
        fx.assertWriteLands(a.transport(), id, tb, (byte) 26);
        third.close();
    }

    @DirectoryRuleTest(B28)
    public final void b28_aResolutionOnAnUnreachableDirectoryFailsAsUnavailable() throws Exception {
        DirectoryFixture fx = fx();
        Node b = node("b");
        String id = b.id();
        Directory client = fx.client();
        Duration bound = client.operationTimeout().plusSeconds(2);
        Duration resolveTimeout = bound.multipliedBy(2);
        RecordingTransport t = new RecordingTransport(fx.transport(fx.agent("a")));
        MemberLog log = fx.log();
        var m = fx.start(fx.builder(t, client, log).followNone().resolveTimeout(resolveTimeout));
        int mark = log.lines().size();

        fx.deployment.cutOff(client);
        long start = System.nanoTime();
        CompletableFuture<Long> f = m.resolve(id);
        MemberResolutionException e;
        try {
            long epoch = f.get(resolveTimeout.plusSeconds(5).toMillis(), TimeUnit.MILLISECONDS);
            throw new AssertionError(fx.msg("a membership cut off from its directory resolved " + id + " (epoch "
                    + epoch + ")"));
        } catch (ExecutionException x) {
            if (!(x.getCause() instanceof MemberResolutionException r)) {
                throw new AssertionError(fx.msg("the resolution on an unreachable directory failed with " + x.getCause()
                        + ", not a MemberResolutionException"), x.getCause());
            }
            e = r;
        } catch (TimeoutException x) {
            throw new AssertionError(fx.msg("the resolution on an unreachable directory did not end within its resolve"
                    + " timeout of " + resolveTimeout.toMillis() + " ms (+5 s)"), x);
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertEquals(MemberResolutionException.Reason.UNAVAILABLE, e.reason(), fx.msg("a resolution whose directory"
                + " could not be read: " + e));
        assertTrue(e.getCause() != null, fx.msg("the UNAVAILABLE resolution carries no cause: " + e));
        assertTrue(took.compareTo(bound) <= 0, fx.msg("the resolution on an unreachable directory failed after "
                + took.toMillis() + " ms, above the directory's operation timeout of "
                + client.operationTimeout().toMillis() + " ms (+2 s)"));
        assertFalse(m.members().containsKey(id), fx.msg("the failed resolution left " + id + " among the members: "
                + m.members()));
        assertEquals(List.of(), t.calls(id), fx.msg("the failed resolution reached the transport"));
        List<String> told = log.lines().subList(mark, log.lines().size());
        assertFalse(told.stream().anyMatch(l -> l.startsWith("added " + id + " ")), fx.msg("the listeners were told "
                + id + " was added by a resolution that failed: " + told));

        fx.deployment.reconnect(client);
        long epoch = -1;
        long end = System.nanoTime() + fx.env.timeout().toNanos();
        while (epoch < 0) { // the client takes a moment to be back: until then a resolution is UNAVAILABLE again
            try {
                epoch = m.resolve(id).get(resolveTimeout.plusSeconds(5).toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException x) {
                if (!(x.getCause() instanceof MemberResolutionException r)
                        || r.reason() != MemberResolutionException.Reason.UNAVAILABLE || System.nanoTime() > end) {
                    throw new AssertionError(fx.msg("resolving " + id + " once the directory was back failed"),
                            x.getCause());
                }
                Thread.sleep(100);
            }
        }
        assertEquals(b.epoch(), epoch, fx.msg("resolving once the directory was back gave another epoch"));
        fx.assertWriteLands(t, id, b.transport(), (byte) 28);
    }

    /**
     * After a failed resolution of {@code id} whose registration was held: the membership holds
     * nothing of it and told nobody it was added (in its log's lines from {@code mark} on), and once the registration is let go, the
     * transport it reached is taken back ({@code add}, then {@code remove}) and stays so.
     */
    private void assertLeftNothing(Node a, String id, int mark, String what) throws InterruptedException {
        DirectoryFixture fx = fx();
        assertFalse(a.membership().members().containsKey(id), fx.msg(what + " left " + id + " among the members of "
                + a.id() + ": " + a.membership().members()));
        a.transport().letRegistrationsGo();
        List<String> calls = a.transport().calls(id);
        awaitWithin(() -> a.transport().calls(id).getLast().equals("remove " + id), fx.env.timeout(),
                () -> what + " left its registration of " + id + " in the transport: " + a.transport().calls(id));
        Thread.sleep(fx.env.quiet().toMillis()); // the registration's late completion changes nothing
        assertTrue(a.transport().calls(id).getLast().equals("remove " + id) && a.transport().traffic(id).isEmpty(),
                fx.msg(what + ": " + id + " was registered again after its registration completed late: "
                        + a.transport().calls(id) + " (before: " + calls + ")"));
        assertFalse(a.membership().members().containsKey(id), fx.msg(what + ": " + a.id() + " holds " + id
                + " after its registration completed late"));
        List<String> told = a.log().lines().subList(mark, a.log().lines().size());
        assertFalse(told.stream().anyMatch(l -> l.startsWith("added " + id + " ")), fx.msg(what
                + ": the listeners were told " + id + " was added: " + told));
    }

    private void assertFailsAs(CompletableFuture<Long> f, MemberResolutionException.Reason reason, String what)
            throws InterruptedException {
        DirectoryFixture fx = fx();
        try {
            long epoch = f.get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
            throw new AssertionError(fx.msg(what + " completed with epoch " + epoch + "; expected " + reason));
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof MemberResolutionException m) || m.reason() != reason) {
                throw new AssertionError(fx.msg(what + " failed with " + e.getCause() + "; expected " + reason),
                        e.getCause());
            }
        } catch (TimeoutException e) {
            throw new AssertionError(fx.msg(what + " did not end within " + fx.env.timeout().toMillis() + " ms"), e);
        }
    }

}
