package io.blockxfer.tck.directory;

import static io.blockxfer.tck.directory.DirectoryRules.B16;
import static io.blockxfer.tck.directory.DirectoryRules.B29;
import static io.blockxfer.tck.directory.DirectoryRules.B31;
import static io.blockxfer.tck.directory.DirectoryRules.B33;
import static io.blockxfer.tck.directory.DirectoryRules.B34;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryEvent;
import io.blockxfer.directory.DirectoryListener;
import io.blockxfer.directory.DirectoryScope;
import io.blockxfer.directory.DirectorySnapshot;
import io.blockxfer.directory.DirectoryWatch;
import io.blockxfer.directory.Membership;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import org.jspecify.annotations.Nullable;

/**
 * B16, B29, B31 and B33: a member's care of its own entry: an entry overwritten or deleted while
 * its lease lives is restored under that lease, with nothing else changed (B16), and however fast it
 * is overwritten, at most {@link Membership#MAX_RESTORES_PER_SECOND} times a second (B29); a goodbye
 * leaves the key empty even when a stranger's writes race it (B31); a lease that ran out while the
 * member was cut off is published again once it is back, and its members re-registered (B33), as
 * the flap interval will leave them when the loss comes while it holds changes back (B34).
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class OwnEntryRules extends MembershipRuleGroup {

    /** How long B29 overwrites a member's key back to back. */
    private static final Duration STORM = Duration.ofSeconds(1);

    OwnEntryRules(DirectoryConformanceSuite suite) {
        super(suite);
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

    @DirectoryRuleTest(B29)
    public final void b29_aStormOfOverwritesIsRestoredAtABoundedRate() throws Exception {
        DirectoryFixture fx = fx();
        Node b = node("b");
        String key = b.client().prefix() + b.id();
        WatchLog watch = fx.watcher();
        fx.await(() -> held(watch, key).length > 0, () -> b.id() + "'s entry is not in the directory");
        byte[] own = held(watch, key);
        long lease = leaseOf(watch, key);
        long epoch = b.epoch();
        int seen = watch.changes().size();

        // overwrite its key as fast as the directory takes it, for a second
        long start = System.nanoTime();
        int overwrites = 0;
        while (System.nanoTime() - start < STORM.toNanos()) {
            fx.deployment.putRaw(key, bytes("garbage " + overwrites++));
        }
        Duration settle = Duration.ofMillis(2000 / Membership.MAX_RESTORES_PER_SECOND).plus(fx.env.quiet());
        fx.await(() -> Arrays.equals(own, held(watch, key)) && leaseOf(watch, key) == lease, () -> b.id() + "'s key"
                + " does not hold its entry on its lease " + lease + " again after " + STORM.toMillis() + " ms of"
                + " overwrites: " + watch.current(key), settle);
        Thread.sleep(fx.env.quiet().toMillis()); // a restore more, if any, is seen
        double seconds = (System.nanoTime() - start) / 1e9;
        List<DirectoryEvent> changes = watch.changes();
        long restores = changes.subList(seen, changes.size()).stream()
                .filter(e -> e.type() == DirectoryEvent.Type.PUT && e.key().equals(key) && e.lease() == lease)
                .count();
        long bound = 1 + (long) Math.ceil(seconds * Membership.MAX_RESTORES_PER_SECOND);
        assertTrue(overwrites > 2 * bound, fx.msg("the directory took only " + overwrites + " raw writes in "
                + STORM.toMillis() + " ms: too few to tell a bounded restore rate from an unbounded one"));
        assertTrue(restores >= 1, fx.msg(b.id() + " did not restore its entry after " + overwrites + " overwrites"));
        assertTrue(restores <= bound, fx.msg(b.id() + " wrote its entry back " + restores + " times in "
                + String.format(java.util.Locale.ROOT, "%.2f", seconds) + " s of " + overwrites + " overwrites,"
                + " above the bound of " + bound + " (one at once, then at most " + Membership.MAX_RESTORES_PER_SECOND
                + " a second)"));
        assertEquals(epoch, b.epoch(), fx.msg(b.id() + " published anew instead of restoring: " + b.log().lines()));
        assertEquals(1, b.log().count("published "), fx.msg(b.id() + " published more than once: "
                + b.log().lines()));
    }

    @DirectoryRuleTest(B31)
    public final void b31_aGoodbyeEmptiesTheKeyThatAStrangerWroteInto() throws Exception {
        DirectoryFixture fx = fx();
        RecordingTransport t = new RecordingTransport(fx.transport(fx.agent("b")));
        String id = t.agentName();
        Directory client = fx.client();
        String key = client.prefix() + id;
        RacedClient raced = new RacedClient(client, key, restored -> fx.deployment.putRaw(restored,
                bytes("a stranger's write right after a restore")));
        Membership b = fx.start(fx.builder(t, raced, fx.log()));
        Node a = node("a");
        fx.awaitMember(a.membership(), id, b.epoch());
        WatchLog watch = fx.watcher();
        fx.await(() -> held(watch, key).length > 0, () -> id + "'s entry is not in the directory");

        // a stranger's write that the member has not seen when it says goodbye, and another right after
        // the restore its refused conditional delete leads to
        raced.blind();
        fx.deployment.putRaw(key, bytes("a stranger's write just before the goodbye"));
        b.close();
        assertTrue(raced.restoredSinceBlind(), fx.msg(id + " said goodbye without restoring its entry over the"
                + " stranger's write in its key (its conditional delete should have been refused)"));
        fx.await(() -> watch.current(key) == null, () -> id + "'s key still holds " + watch.current(key)
                + " after its goodbye");
        a.log().await("removed " + id + " ", fx.msg(a.id() + " did not remove " + id + " after its goodbye"));
        Thread.sleep(fx.env.quiet().toMillis());
        assertEquals(null, watch.current(key), fx.msg(id + "'s key was written again after its goodbye"));
    }

    @DirectoryRuleTest(B33)
    public final void b33_aLeaseThatRanOutInAnOutageIsPublishedAgainAfterIt() throws Exception {
        DirectoryFixture fx = fx();
        Duration ttl = io.blockxfer.directory.DirectoryLimits.MIN_TTL;
        Node a = node("a", builder -> builder.ttl(ttl).flapInterval(Duration.ZERO));
        Node b = node("b", builder -> builder.flapInterval(Duration.ZERO));
        fx.awaitMember(a.membership(), b.id(), b.epoch());
        fx.awaitMember(b.membership(), a.id(), a.epoch());
        long first = a.epoch();

        fx.deployment.cutOff(a.client());
        a.log().await("disconnected", fx.msg(a.id() + " was not told its directory was lost"));
        fx.deployment.elapse(ttl.plus(fx.deployment.expiryGrace()).plusSeconds(1));
        b.log().await("removed " + a.id() + " ", fx.msg(b.id() + " did not remove " + a.id() + ", whose lease ran out"
                + " while it was cut off"));
        fx.assertWriteLands(a.transport(), b.id(), b.transport(), (byte) 33); // known peers go on meanwhile

        fx.deployment.reconnect(a.client());
        a.log().await("lost " + first, fx.msg(a.id() + " did not say its lease was lost once its directory was back"));
        String published = a.log().await(l -> l.startsWith("published ") && !l.equals("published " + first),
                fx.msg(a.id() + " did not publish again after its lease ran out in the outage"));
        long second = Long.parseLong(published.substring("published ".length()));
        assertTrue(second > first, fx.msg("the new epoch " + second + " is not above " + first));
        fx.awaitMember(b.membership(), a.id(), second);
        a.log().await("reregistered " + b.id() + " ", fx.msg(a.id() + " did not re-register " + b.id() + " after"
                + " publishing again"));
        fx.assertWriteLands(b.transport(), a.id(), a.transport(), (byte) 34);
        fx.assertWriteLands(a.transport(), b.id(), b.transport(), (byte) 35);
        Thread.sleep(fx.env.quiet().toMillis());
        assertEquals(1, a.log().count("lost "), fx.msg(a.id() + " said its lease was lost more than once: "
                + a.log().lines()));
        assertEquals(1, a.log().count("reregistered " + b.id() + " "), fx.msg(a.id() + " re-registered " + b.id()
                + " more than once: " + a.log().lines()));
    }

    @DirectoryRuleTest(B34)
    public final void b34_aLeaseLostWhileChangesAreHeldBackReRegistersWhatTheyWillBe() throws Exception {
        DirectoryFixture fx = fx();
        Duration interval = Duration.ofSeconds(3);
        Node a = node("a", builder -> builder.flapInterval(interval));
        Node b = node("b");
        Node d = node("d");
        DeploymentKeyRing ring = fx.ring();
        DataTransport oldC = fx.transport(fx.agent("c"));
        String c = oldC.agentName();
        Publication c1 = publishEntry(fx.client(), c, 1, oldC.localDescriptor(), ring);
        fx.awaitMember(a.membership(), b.id(), b.epoch());
        fx.awaitMember(a.membership(), d.id(), d.epoch());
        fx.awaitMember(a.membership(), c, 1);
        long start = System.nanoTime();

        // within the interval of their last change: c's newer entry and d's goodbye are held back
        DataTransport newC = fx.transport(c);
        Publication c2 = publishEntry(fx.client(), c, 2, newC.localDescriptor(), ring);
        d.membership().close(); // its goodbye deletes its key before close returns
        long first = a.epoch();
        fx.deployment.loseLease(a.id());
        a.log().await("lost " + first, fx.msg(a.id() + " did not say its lease was lost"));
        a.log().await("reregistered " + b.id() + " ", fx.msg(a.id() + " did not re-register " + b.id() + " after its"
                + " own lease was lost"));
        assertTrue(System.nanoTime() - start < interval.toNanos(), fx.msg("the rule's setup outlasted the flap"
                + " interval of " + interval.toMillis() + " ms on this machine: nothing was held back when the lease"
                + " was lost"));
        fx.awaitMember(a.membership(), c, 2, interval);
        fx.await(() -> !a.membership().members().containsKey(d.id()), () -> a.id() + " still holds " + d.id()
                + ", which said goodbye before the loss: " + a.membership().members(), interval);
        // the held changes' interval is over, and what it held applied, if it was not already
        Thread.sleep(Math.max(0, start + interval.toNanos() - System.nanoTime()) / 1_000_000 + fx.env.quiet().toMillis());
        List<String> lines = a.log().lines();
        assertEquals(1, a.log().count("reregistered " + b.id() + " "), fx.msg(a.id() + " re-registered " + b.id()
                + " other than once: " + lines));
        assertEquals(0, a.log().count("reregistered " + c + " 1"), fx.msg(a.id() + " re-registered " + c + " at the"
                + " epoch its newer entry replaced: " + lines));
        assertEquals(1, a.log().count("updated " + c + " 2") + a.log().count("reregistered " + c + " 2"),
                fx.msg(a.id() + " did not take " + c + "'s newer entry once: " + lines));
        assertEquals(0, a.log().count("reregistered " + d.id() + " "), fx.msg(a.id() + " re-registered " + d.id()
                + ", which had left: " + lines));
        assertFalse(a.membership().members().containsKey(d.id()), fx.msg(a.id() + " holds " + d.id() + ", which had"
                + " left: " + a.membership().members()));
        assertEquals(Long.valueOf(2), a.membership().members().get(c), fx.msg(a.id() + " holds " + c + " at another"
                + " epoch: " + a.membership().members()));
        fx.assertWriteLands(a.transport(), c, newC, (byte) 36);
        fx.assertWriteLands(a.transport(), b.id(), b.transport(), (byte) 37);
        c1.close();
        c2.close();
        oldC.close();
    }

    /**
     * A member's client in a race with a stranger: once {@link #blind()}, the member's watches no
     * longer deliver changes of its own key (it has not seen the stranger's write yet when it closes),
     * and its publication's first restore from then on is followed at once by {@code afterRestore}
     * (given the key), a stranger's write landing between that restore and the delete after it.
     */
    private static final class RacedClient implements Directory {
        private final Directory d;
        private final String key;
        private final Consumer<String> afterRestore;
        private final AtomicBoolean blind = new AtomicBoolean();
        private final AtomicBoolean restored = new AtomicBoolean();

        RacedClient(Directory d, String key, Consumer<String> afterRestore) {
            this.d = d;
            this.key = key;
            this.afterRestore = afterRestore;
        }

        void blind() {
            blind.set(true);
        }

        boolean restoredSinceBlind() {
            return restored.get();
        }

        @Override public String prefix() { return d.prefix(); }
        @Override public Duration operationTimeout() { return d.operationTimeout(); }
        @Override public CompletableFuture<DirectorySnapshot> read(DirectoryScope s) { return d.read(s); }
        @Override public void close() { d.close(); }

        @Override
        public DirectoryWatch watch(DirectoryScope scope, DirectoryListener listener) {
            return d.watch(scope, unseeing(listener));
        }

        @Override
        public DirectoryWatch watch(DirectoryScope scope, DirectorySnapshot from, DirectoryListener listener) {
            return d.watch(scope, from, unseeing(listener));
        }

        private DirectoryListener unseeing(DirectoryListener l) {
            return new DirectoryListener() {
                @Override public void snapshot(DirectorySnapshot s) { l.snapshot(s); }
                @Override public void disconnected(String reason) { l.disconnected(reason); }
                @Override public void reconnected(long revision, boolean resync) { l.reconnected(revision, resync); }

                @Override
                public void changed(DirectoryEvent e) {
                    if (!(blind.get() && e.key().equals(key))) {
                        l.changed(e);
                    }
                }
            };
        }

        @Override
        public Publication publish(String memberId, @Nullable String group, LongFunction<byte[]> value, Duration ttl,
                PublicationListener listener) {
            Publication p = d.publish(memberId, group, value, ttl, listener);
            return new Publication() {
                @Override public String memberId() { return p.memberId(); }
                @Override public String key() { return p.key(); }
                @Override public Duration ttl() { return p.ttl(); }
                @Override public long revision() { return p.revision(); }
                @Override public long lease() { return p.lease(); }
                @Override public boolean deleteIfAt(long revision) { return p.deleteIfAt(revision); }
                @Override public boolean isLost() { return p.isLost(); }
                @Override public void close() { p.close(); }

                @Override
                public long restore() {
                    long at = p.restore();
                    if (blind.get() && restored.compareAndSet(false, true)) {
                        afterRestore.accept(p.key());
                    }
                    return at;
                }
            };
        }
    }
}
