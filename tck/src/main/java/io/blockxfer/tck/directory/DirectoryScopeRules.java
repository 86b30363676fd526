package io.blockxfer.tck.directory;

import static io.blockxfer.tck.directory.DirectoryRules.D14;
import static io.blockxfer.tck.directory.DirectoryRules.D15;
import static io.blockxfer.tck.directory.DirectoryRules.D16;
import static io.blockxfer.tck.directory.DirectoryRules.D17;
import static io.blockxfer.tck.directory.DirectoryRules.D18;
import static io.blockxfer.tck.directory.DirectoryRules.D19;
import static io.blockxfer.tck.directory.DirectoryRules.D20;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryEntry;
import io.blockxfer.directory.DirectoryEvent;
import io.blockxfer.directory.DirectoryScope;
import io.blockxfer.directory.DirectorySnapshot;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * D14 on: watches of one key range ({@link io.blockxfer.directory.DirectoryScope}: one member's key,
 * one group's keys, every member key), publications with a group (both keys on one lease, at one
 * revision, restored and deleted together), reads of a scope, watches from a read, and the
 * conditional delete of a goodbye.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class DirectoryScopeRules extends DirectoryRuleGroup {

    DirectoryScopeRules(DirectoryConformanceSuite suite) {
        super(suite);
    }

    /** {@code "PUT key"} or {@code "DELETE key"} for each event, to compare what a watch delivered. */
    private static List<String> described(List<DirectoryEvent> events) {
        return events.stream().map(e -> e.type() + " " + e.key()).toList();
    }

    /** Publishes {@code value} under {@code memberId} in {@code group} from {@code client}. */
    private static Publication publish(Directory client, String memberId, String group, String value) {
        byte[] bytes = bytes(value);
        return client.publish(memberId, group, lease -> bytes, DirectoryFixture.TTL, PublicationListener.NONE);
    }

    @DirectoryRuleTest(D14)
    public final void d14_memberScope() throws Exception {
        DirectoryFixture fx = fx();
        Directory a = fx.client();
        String key = fx.key(a, "b");
        Publication longer = a.publish("b1", bytes("b1 before"), DirectoryFixture.TTL, PublicationListener.NONE);
        WatchLog one = fx.watcher(DirectoryScope.member("b"));
        DirectorySnapshot empty = one.snapshot();
        assertEquals(List.of(), empty.entries().stream().map(DirectoryEntry::key).toList(),
                fx.msg("the snapshot of member 'b', which does not exist, is not empty"));
        assertTrue(empty.revision() >= longer.revision(), fx.msg("the empty snapshot's revision " + empty.revision()
                + " is below that of a write before it, " + longer.revision()));
        a.publish("b1", bytes("b1 while watched"), DirectoryFixture.TTL, PublicationListener.NONE);
        Publication b = publish(a, "b", "g", "b in g");
        DirectoryEvent put = one.awaitPut(key, fx.msg("the watch of member 'b' did not see the put of " + key));
        assertEquals(b.revision(), put.revision(), fx.msg("the put's revision is not the publication's"));
        assertEquals(b.lease(), put.lease(), fx.msg("the put's lease is not the publication's"));
        b.close();
        one.awaitDelete(key, fx.msg("the watch of member 'b' did not see the goodbye of " + key));
        Publication again = a.publish("b", bytes("b again"), DirectoryFixture.TTL, PublicationListener.NONE);
        one.awaitEvent(e -> e.key().equals(key) && e.revision() == again.revision(),
                fx.msg("the watch of member 'b' did not see " + key + " published again"));
        assertEquals(List.of("PUT " + key, "DELETE " + key, "PUT " + key), described(one.changes()),
                fx.msg("the watch of member 'b' delivered more or less than the changes of " + key + " ('b1' and 'b''s"
                        + " group key changed meanwhile): " + one.changes()));
        DirectorySnapshot full = fx.watcher(DirectoryScope.member("b")).snapshot();
        assertEquals(List.of(key), full.entries().stream().map(DirectoryEntry::key).toList(),
                fx.msg("the snapshot of member 'b' is not its one entry (" + fx.key(a, "b1") + " exists too)"));
        assertEquals(again.revision(), full.entries().get(0).revision(), fx.msg("the snapshot's revision of " + key));
        assertEquals(again.lease(), full.entries().get(0).lease(), fx.msg("the snapshot's lease of " + key));
    }

    @DirectoryRuleTest(D15)
    public final void d15_groupScope() throws Exception {
        DirectoryFixture fx = fx();
        Directory a = fx.client();
        String prefix = a.prefix();
        Publication w = publish(a, "w", "dec", "w in dec");
        publish(a, "v", "decode", "v in decode");
        a.publish("u", bytes("u"), DirectoryFixture.TTL, PublicationListener.NONE);
        WatchLog dec = fx.watcher(DirectoryScope.group("dec"));
        String wKey = DirectoryScope.groupKey(prefix, "dec", "w");
        assertEquals(List.of(wKey), dec.snapshot().entries().stream().map(DirectoryEntry::key).toList(),
                fx.msg("the snapshot of group 'dec' is not its one group key (group 'decode' and member keys exist"
                        + " too)"));
        DirectoryEntry listed = dec.snapshot().entries().get(0);
        assertArrayEquals(bytes("w in dec"), listed.value(), fx.msg("the snapshot's value of " + wKey));
        assertEquals(w.lease(), listed.lease(), fx.msg("the snapshot's lease of " + wKey));
        Publication x = publish(a, "x", "dec", "x in dec");
        publish(a, "y", "decode", "y in decode");
        a.publish("z", bytes("z"), DirectoryFixture.TTL, PublicationListener.NONE);
        x.close();
        Publication last = publish(a, "s", "dec", "s in dec");
        String xKey = DirectoryScope.groupKey(prefix, "dec", "x");
        String sKey = DirectoryScope.groupKey(prefix, "dec", "s");
        dec.awaitPut(sKey, fx.msg("the watch of group 'dec' did not see the put of " + sKey));
        assertEquals(List.of("PUT " + xKey, "DELETE " + xKey, "PUT " + sKey), described(dec.changes()),
                fx.msg("the watch of group 'dec' delivered more or less than its group keys' changes (group 'decode'"
                        + " and plain members changed meanwhile): " + dec.changes()));
        DirectoryEvent xPut = dec.changes().get(0);
        assertEquals(x.revision(), xPut.revision(), fx.msg("the revision of the put of " + xKey));
        assertEquals(x.lease(), xPut.lease(), fx.msg("the lease of the put of " + xKey));
        assertEquals(last.revision(), dec.changes().get(2).revision(), fx.msg("the revision of the put of " + sKey));
    }

    @DirectoryRuleTest(D16)
    public final void d16_groupedPublication() throws Exception {
        DirectoryFixture fx = fx();
        Directory a = fx.client();
        WatchLog members = fx.watcher();
        WatchLog group = fx.watcher(DirectoryScope.group("g"));
        byte[] value = bytes("the entry of m in g");
        Publication p = a.publish("m", "g", lease -> value, DirectoryFixture.TTL, PublicationListener.NONE);
        String key = fx.key(a, "m");
        String groupKey = DirectoryScope.groupKey(a.prefix(), "g", "m");
        assertEquals(key, p.key(), fx.msg("the publication's key is its member key"));
        assertWritten(fx, p, value, p.revision(), members.awaitPut(key, fx.msg("no put of " + key)),
                group.awaitPut(groupKey, fx.msg("no put of the group key " + groupKey)));
        DirectoryEntry listed = entry(fx.watcher(DirectoryScope.group("g")).snapshot(), groupKey);
        assertTrue(listed != null && listed.revision() == p.revision() && listed.lease() == p.lease(),
                fx.msg("a new watch of group 'g' does not list " + groupKey + " at the publication's revision "
                        + p.revision() + " and lease " + p.lease() + ": " + listed));
        long written = p.revision();
        if (fx.deployment.faults().contains(DirectoryFault.RAW_WRITE)) {
            fx.deployment.deleteRaw(key);
            fx.deployment.deleteRaw(groupKey);
            members.awaitDelete(key, fx.msg("no delete of " + key));
            group.awaitDelete(groupKey, fx.msg("no delete of " + groupKey));
            long restored = p.restore();
            assertWritten(fx, p, value, restored,
                    members.awaitEvent(e -> e.key().equals(key) && e.revision() == restored,
                            fx.msg("restore did not write " + key + " back at its revision " + restored)),
                    group.awaitEvent(e -> e.key().equals(groupKey) && e.revision() == restored,
                            fx.msg("restore did not write the group key " + groupKey + " back at its revision "
                                    + restored)));
            DirectoryEntry back = entry(fx.watcher(DirectoryScope.group("g")).snapshot(), groupKey);
            assertTrue(back != null && back.revision() == restored && back.lease() == p.lease(),
                    fx.msg("after restore, a new watch of group 'g' does not list " + groupKey + " at revision "
                            + restored + " and lease " + p.lease() + ": " + back));
            written = restored;
        }
        long before = written;
        p.close();
        members.awaitEvent(e -> e.key().equals(key) && e.type() == DirectoryEvent.Type.DELETE && e.revision() > before,
                fx.msg("the goodbye did not delete " + key));
        group.awaitEvent(e -> e.key().equals(groupKey) && e.type() == DirectoryEvent.Type.DELETE
                && e.revision() > before, fx.msg("the goodbye did not delete the group key " + groupKey));
    }

    /** The puts of a grouped publication's two keys: its value and lease, both at {@code revision}. */
    private static void assertWritten(DirectoryFixture fx, Publication p, byte[] value, long revision,
            DirectoryEvent memberPut, DirectoryEvent groupPut) {
        for (DirectoryEvent e : List.of(memberPut, groupPut)) {
            assertArrayEquals(value, e.value(), fx.msg("the value put under " + e.key()));
            assertEquals(p.lease(), e.lease(), fx.msg(e.key() + " is attached to lease " + e.lease() + ", not to the"
                    + " publication's " + p.lease()));
            assertEquals(revision, e.revision(), fx.msg(e.key() + " was written at revision " + e.revision()
                    + ", not with the other key at " + revision + " (one write)"));
        }
    }

    @DirectoryRuleTest(D17)
    public final void d17_membersWatchWithoutGroupKeys() throws Exception {
        DirectoryFixture fx = fx();
        Directory a = fx.client();
        String groups = a.prefix() + DirectoryScope.GROUP_SEGMENT;
        publish(a, "m", "g", "m in g");
        a.publish("n", bytes("n"), DirectoryFixture.TTL, PublicationListener.NONE);
        WatchLog log = fx.watcher();
        assertEquals(Set.of(fx.key(a, "m"), fx.key(a, "n")), log.snapshot().entries().stream()
                .map(DirectoryEntry::key).collect(java.util.stream.Collectors.toSet()),
                fx.msg("the snapshot of every member is not the two member keys (no group key)"));
        Publication o = publish(a, "o", "g", "o in g");
        log.awaitPut(fx.key(a, "o"), fx.msg("the watch did not see the put of " + fx.key(a, "o")));
        o.close();
        log.awaitDelete(fx.key(a, "o"), fx.msg("the watch did not see the goodbye of " + fx.key(a, "o")));
        sync(fx, a, log);
        List<DirectoryEvent> grouped = log.changes().stream().filter(e -> e.key().startsWith(groups)).toList();
        assertEquals(List.of(), grouped, fx.msg("the watch of every member delivered group keys"));
    }

    /** The snapshot {@code client} reads of {@code scope}, within the rule's timeout. */
    private static DirectorySnapshot read(DirectoryFixture fx, Directory client, DirectoryScope scope)
            throws InterruptedException {
        try {
            return client.read(scope).get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError(fx.msg("a read of " + scope + " failed: " + e.getCause()), e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError(fx.msg("a read of " + scope + " did not complete within "
                    + fx.env.timeout().toMillis() + " ms"), e);
        }
    }

    @DirectoryRuleTest(D18)
    public final void d18_readOfAScope() throws Exception {
        DirectoryFixture fx = fx();
        Directory a = fx.client();
        Publication before = a.publish("other", bytes("another member"), DirectoryFixture.TTL, PublicationListener.NONE);
        DirectorySnapshot absent = read(fx, a, DirectoryScope.member("m"));
        assertEquals(List.of(), absent.entries(), fx.msg("a read of member 'm', which does not exist, is not empty"));
        assertTrue(absent.revision() >= before.revision(), fx.msg("a read's revision " + absent.revision()
                + " is below that of a write before it, " + before.revision()));
        Publication m = publish(a, "m", "g", "m in g");
        Directory b = fx.client(); // another process reads what this one wrote
        DirectorySnapshot one = read(fx, b, DirectoryScope.member("m"));
        assertTrue(one.revision() >= m.revision(), fx.msg("a read after a publication is at revision "
                + one.revision() + ", below the publication's " + m.revision()));
        assertEquals(1, one.entries().size(), fx.msg("a read of member 'm' holds " + one.entries()));
        DirectoryEntry e = one.entries().get(0);
        assertEquals(m.key(), e.key(), fx.msg("a read of member 'm' holds another key"));
        assertArrayEquals(bytes("m in g"), e.value(), fx.msg("a read of member 'm' holds another value"));
        assertEquals(m.revision(), e.revision(), fx.msg("the read entry's revision is not the publication's"));
        assertEquals(m.lease(), e.lease(), fx.msg("the read entry's lease is not the publication's"));
        DirectorySnapshot group = read(fx, b, DirectoryScope.group("g"));
        assertEquals(List.of(DirectoryScope.groupKey(b.prefix(), "g", "m")), group.entries().stream()
                .map(DirectoryEntry::key).toList(), fx.msg("a read of group 'g' holds other keys"));
        WatchLog watched = fx.watcher(DirectoryScope.member("m"));
        assertEquals(watched.snapshot().entries(), read(fx, b, DirectoryScope.member("m")).entries(),
                fx.msg("a read and a watch's snapshot of one scope differ"));
        b.close();
        try {
            var unused = b.read(DirectoryScope.member("m")).get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
            throw new AssertionError(fx.msg("a read of a closed directory completed"));
        } catch (IllegalStateException | ExecutionException refused) {
            Throwable why = refused instanceof ExecutionException x ? x.getCause() : refused;
            assertTrue(why instanceof IllegalStateException, fx.msg("a read of a closed directory failed with " + why
                    + ", not an IllegalStateException"));
        }
    }

    @DirectoryRuleTest(D19)
    public final void d19_watchFromASnapshot() throws Exception {
        DirectoryFixture fx = fx();
        Directory a = fx.client();
        Directory b = fx.client();
        DirectorySnapshot from = read(fx, b, DirectoryScope.member("m"));
        // changes between the read and the watch: the watch must deliver them after the read's snapshot
        Publication first = a.publish("m", bytes("m first"), DirectoryFixture.TTL, PublicationListener.NONE);
        first.close();
        Publication second = a.publish("m", bytes("m second"), DirectoryFixture.TTL, PublicationListener.NONE);
        WatchLog log = new WatchLog(fx.env.timeout());
        fx.keep(b.watch(DirectoryScope.member("m"), from, log));
        assertEquals(from, log.awaitSnapshot(fx.msg("a watch from a read")), fx.msg("the snapshot of a watch from a"
                + " read is not that read"));
        log.await(l -> {
            DirectoryEntry now = l.current(second.key());
            return now != null && now.revision() == second.revision();
        }, fx.msg("the watch from revision " + from.revision() + " did not deliver the publication made after the"
                + " read (its changes since, or where the directory cannot replay them, their differences)"));
        DirectoryEntry now = log.current(second.key());
        assertArrayEquals(bytes("m second"), now == null ? null : now.value(), fx.msg("the watch from a read holds"
                + " another value"));
        second.close();
        log.awaitEvent(e -> e.type() == DirectoryEvent.Type.DELETE && e.revision() > second.revision(),
                fx.msg("the watch did not deliver the goodbye made after it started"));
        assertTrue(log.changes().stream().allMatch(e -> e.revision() > from.revision()), fx.msg("a change at or"
                + " before the read's revision was delivered: " + log.changes()));
        assertEquals(null, log.current(second.key()), fx.msg("the watch's content still holds the member"));
    }

    @DirectoryRuleTest(D20)
    public final void d20_conditionalDelete() throws Exception {
        DirectoryFixture fx = fx();
        Directory a = fx.client();
        Directory b = fx.client();
        WatchLog log = fx.watcher(DirectoryScope.member("m"));
        Publication older = publish(a, "m", "g", "m of a");
        Publication newer = publish(b, "m", "g", "m of b"); // takes both keys over, at a later revision
        log.awaitPut(newer.key(), fx.msg("the watch did not see the second publication"));
        assertEquals(false, older.deleteIfAt(older.revision()), fx.msg("a conditional delete at the older"
                + " publication's revision deleted the key, which the newer publication wrote since"));
        String groupKey = DirectoryScope.groupKey(a.prefix(), "g", "m");
        DirectorySnapshot kept = read(fx, fx.client(), DirectoryScope.group("g"));
        assertEquals(List.of(groupKey), kept.entries().stream().map(DirectoryEntry::key).toList(),
                fx.msg("a refused conditional delete removed the group key"));
        DirectoryEntry still = entry(read(fx, fx.client(), DirectoryScope.member("m")), newer.key());
        assertArrayEquals(bytes("m of b"), still == null ? null : still.value(), fx.msg("a refused conditional"
                + " delete changed or deleted the newer entry"));
        assertTrue(newer.deleteIfAt(newer.revision()), fx.msg("a conditional delete at the key's own revision"
                + " did not delete it"));
        DirectoryEvent gone = log.awaitDelete(newer.key(), fx.msg("the conditional delete was not delivered"));
        DirectorySnapshot after = read(fx, fx.client(), DirectoryScope.group("g"));
        assertEquals(List.of(), after.entries(), fx.msg("the conditional delete left the group key behind"));
        assertTrue(after.revision() >= gone.revision(), fx.msg("a read after the delete is older than it"));
        assertEquals(false, newer.isLost(), fx.msg("the conditional delete ended the lease, which close revokes"));
        newer.close();
        older.close();
    }
}
