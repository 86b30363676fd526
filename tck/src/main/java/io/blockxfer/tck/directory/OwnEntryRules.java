package io.blockxfer.tck.directory;

import static io.blockxfer.tck.directory.DirectoryRules.B16;
import static io.blockxfer.tck.directory.DirectoryRules.B29;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.directory.DirectoryEvent;
import io.blockxfer.directory.Membership;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * B16 and B29: a member's care of its own entry: an entry overwritten or deleted while its lease
 * lives is restored under that lease, with nothing else changed (B16), and however fast it is
 * overwritten, at most {@link Membership#MAX_RESTORES_PER_SECOND} times a second (B29).
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
}
