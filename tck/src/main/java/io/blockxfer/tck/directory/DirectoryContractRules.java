package io.blockxfer.tck.directory;

import static io.blockxfer.tck.directory.DirectoryRules.D1;
import static io.blockxfer.tck.directory.DirectoryRules.D10;
import static io.blockxfer.tck.directory.DirectoryRules.D11;
import static io.blockxfer.tck.directory.DirectoryRules.D12;
import static io.blockxfer.tck.directory.DirectoryRules.D13;
import static io.blockxfer.tck.directory.DirectoryRules.D2;
import static io.blockxfer.tck.directory.DirectoryRules.D3;
import static io.blockxfer.tck.directory.DirectoryRules.D4;
import static io.blockxfer.tck.directory.DirectoryRules.D5;
import static io.blockxfer.tck.directory.DirectoryRules.D6;
import static io.blockxfer.tck.directory.DirectoryRules.D7;
import static io.blockxfer.tck.directory.DirectoryRules.D8;
import static io.blockxfer.tck.directory.DirectoryRules.D9;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryEntry;
import io.blockxfer.directory.DirectoryEvent;
import io.blockxfer.directory.DirectoryLimits;
import io.blockxfer.directory.DirectoryListener;
import io.blockxfer.directory.DirectorySnapshot;
import io.blockxfer.directory.DirectoryUnavailableException;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * D: the directory contract, on the directory alone: publish and watch, revisions and order,
 * goodbyes, lease expiry and keep-alive, reconnects and resyncs, lease loss, bad arguments, close,
 * listener threads, an unreachable directory; scoped watches (one member's key, one group's keys,
 * every member without the group keys) and publications with a group.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class DirectoryContractRules extends DirectoryRuleGroup {

    DirectoryContractRules(DirectoryConformanceSuite suite) {
        super(suite);
    }

    @DirectoryRuleTest(D1)
    public final void d1_publishThenSnapshotAndEvent() throws Exception {
        DirectoryFixture fx = fx();
        Directory a = fx.client();
        WatchLog running = fx.watcher();
        long snapshotRevision = running.snapshot().revision();
        byte[] value = bytes("the entry of m1");
        long[] madeFor = new long[1];
        Publication p = a.publish("m1", lease -> {
            madeFor[0] = lease;
            return value;
        }, DirectoryFixture.TTL, PublicationListener.NONE);
        String key = fx.key(a, "m1");
        assertTrue(p.lease() > 0, fx.msg("the publication's lease is " + p.lease() + ", not a positive id"));
        assertEquals(p.lease(), madeFor[0], fx.msg("the value was made for another lease than the publication's"));
        assertEquals(key, p.key(), fx.msg("the publication's key"));
        assertEquals("m1", p.memberId(), fx.msg("the publication's member id"));
        DirectoryEvent put = running.awaitPut(key, fx.msg("the running watch did not see the put of " + key));
        assertTrue(put.revision() > snapshotRevision, fx.msg("the put's revision " + put.revision()
                + " is not above the snapshot's " + snapshotRevision));
        assertEquals(p.revision(), put.revision(), fx.msg("the put's revision is not the publication's"));
        assertArrayEquals(value, put.value(), fx.msg("the put's value"));
        assertEquals(p.lease(), put.lease(), fx.msg("the put reports its key attached to lease " + put.lease()
                + ", not to the publication's " + p.lease()));
        DirectorySnapshot later = fx.watcher().snapshot();
        DirectoryEntry found = entry(later, key);
        if (found == null) {
            throw new AssertionError(fx.msg("a new watch's snapshot lacks " + key + ": " + later.entries()));
        }
        assertArrayEquals(value, found.value(), fx.msg("the snapshot's value of " + key));
        assertEquals(p.revision(), found.revision(), fx.msg("the snapshot's revision of " + key));
        assertEquals(p.lease(), found.lease(), fx.msg("the snapshot reports " + key + " attached to lease "
                + found.lease() + ", not to the publication's " + p.lease()));
        assertTrue(later.revision() >= p.revision(), fx.msg("a snapshot older than the entry it holds"));
        if (fx.deployment.faults().contains(DirectoryFault.RAW_WRITE)) {
            String plain = fx.key(a, "plain");
            fx.deployment.putRaw(plain, bytes("a plain put"));
            DirectoryEvent raw = running.awaitPut(plain, fx.msg("the running watch did not see the plain put of "
                    + plain));
            assertEquals(0, raw.lease(), fx.msg("a plain put reports its key attached to lease " + raw.lease()));
            fx.deployment.deleteRaw(plain);
        }
    }

    @DirectoryRuleTest(D2)
    public final void d2_republishReplaces() throws Exception {
        DirectoryFixture fx = fx();
        Directory first = fx.client();
        Directory second = fx.client();
        Publication p1 = first.publish("m", bytes("first"), DirectoryFixture.TTL, PublicationListener.NONE);
        WatchLog log = fx.watcher();
        String key = fx.key(first, "m");
        Publication p2 = second.publish("m", bytes("second"), DirectoryFixture.TTL, PublicationListener.NONE);
        DirectoryEvent put = log.awaitEvent(e -> e.key().equals(key) && e.type() == DirectoryEvent.Type.PUT
                && new String(e.value(), StandardCharsets.UTF_8).equals("second"), fx.msg("no put of the new value"));
        assertTrue(p2.revision() > p1.revision() && put.revision() == p2.revision(), fx.msg("revisions: first "
                + p1.revision() + ", second " + p2.revision() + ", event " + put.revision()));
        p1.close();
        sync(fx, second, log);
        assertFalse(log.changes().stream().anyMatch(e -> e.key().equals(key) && e.type() == DirectoryEvent.Type.DELETE),
                fx.msg("closing the older publication deleted the newer entry: " + log.changes()));
        DirectoryEntry now = entry(fx.watcher().snapshot(), key);
        assertTrue(now != null && new String(now.value(), StandardCharsets.UTF_8).equals("second"),
                fx.msg("the key no longer holds the newer value: " + now));
    }

    @DirectoryRuleTest(D3)
    public final void d3_goodbye() throws Exception {
        DirectoryFixture fx = fx();
        Directory a = fx.client();
        Duration longTtl = Duration.ofMinutes(2);
        Publication p = a.publish("m", bytes("v"), longTtl, PublicationListener.NONE);
        Publication q = a.publish("n", bytes("v"), longTtl, PublicationListener.NONE);
        WatchLog log = fx.watcher();
        assertTrue(entry(log.snapshot(), p.key()) != null, fx.msg("the snapshot lacks " + p.key()));
        p.close();
        p.close();
        log.awaitDelete(p.key(), fx.msg("closing the publication did not delete " + p.key()
                + " (its TTL is " + longTtl.toSeconds() + " s)"));
        a.close();
        log.awaitDelete(q.key(), fx.msg("closing the directory did not delete " + q.key() + ", published on it"));
    }

    @DirectoryRuleTest(D4)
    public final void d4_leaseExpiry() throws Exception {
        DirectoryFixture fx = fx();
        Duration ttl = Duration.ofSeconds(4);
        Directory a = fx.client();
        Publication p = a.publish("m", bytes("v"), ttl, PublicationListener.NONE);
        WatchLog log = fx.watcher();
        fx.deployment.crash(a);
        fx.deployment.elapse(ttl.dividedBy(2));
        Directory b = fx.client();
        sync(fx, b, log);
        assertFalse(log.changes().stream().anyMatch(e -> e.key().equals(p.key())
                && e.type() == DirectoryEvent.Type.DELETE), fx.msg("the entry went half a TTL after its client stopped"
                + " (TTL " + ttl.toSeconds() + " s)"));
        fx.deployment.elapse(ttl.dividedBy(2).plus(fx.deployment.expiryGrace()));
        log.awaitDelete(p.key(), fx.msg("the entry of a stopped client stayed after its TTL of " + ttl.toSeconds()
                + " s and the grace of " + fx.deployment.expiryGrace().toMillis() + " ms"));
    }

    @DirectoryRuleTest(D5)
    public final void d5_orderUnderChurn() throws Exception {
        DirectoryFixture fx = fx();
        List<Directory> clients = List.of(fx.client(), fx.client(), fx.client());
        WatchLog w1 = fx.watcher();
        WatchLog w2 = fx.watcher();
        Random random = new Random(7);
        List<Publication> live = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            if (!live.isEmpty() && random.nextInt(3) == 0) {
                live.remove(random.nextInt(live.size())).close();
            } else {
                Directory c = clients.get(random.nextInt(clients.size()));
                live.add(c.publish("m" + random.nextInt(6), bytes("value " + i), DirectoryFixture.TTL,
                        PublicationListener.NONE));
            }
        }
        sync(fx, clients.get(0), w1, w2);
        for (WatchLog w : List.of(w1, w2)) {
            long last = w.snapshot().revision();
            Set<String> seen = new HashSet<>();
            for (DirectoryEvent e : w.changes()) {
                assertTrue(e.revision() >= last, fx.msg("event " + e + " came after revision " + last + ": "
                        + w.changes()));
                assertTrue(seen.add(e.key() + "@" + e.revision()), fx.msg("event " + e + " delivered twice"));
                last = e.revision();
            }
        }
        WatchLog fresh = fx.watcher();
        assertEquals(fresh.content(), w1.content(), fx.msg("snapshot plus events is not the directory's content"));
        assertEquals(fresh.content(), w2.content(), fx.msg("snapshot plus events is not the directory's content"));
        assertEquals(w1.snapshot().revision(), w2.snapshot().revision(), fx.msg("two idle watches' snapshots differ"));
        assertEquals(w1.changes(), w2.changes(), fx.msg("two watches saw different sequences"));
    }

    @DirectoryRuleTest(D6)
    public final void d6_keepAlive() throws Exception {
        DirectoryFixture fx = fx();
        Duration ttl = Duration.ofSeconds(3);
        Directory a = fx.client();
        Publication p = a.publish("m", bytes("v"), ttl, PublicationListener.NONE);
        WatchLog log = fx.watcher();
        for (int i = 0; i < 9; i++) {
            fx.deployment.elapse(Duration.ofSeconds(1));
        }
        sync(fx, a, log);
        assertFalse(log.changes().stream().anyMatch(e -> e.key().equals(p.key())),
                fx.msg("a kept entry changed within three TTLs: " + log.changes()));
        assertFalse(p.isLost(), fx.msg("the publication says its lease was lost"));
        DirectoryEntry now = entry(fx.watcher().snapshot(), p.key());
        assertTrue(now != null && now.revision() == p.revision(), fx.msg("the entry is gone or changed after three"
                + " TTLs of keep-alive: " + now));
    }

    @DirectoryRuleTest(D7)
    public final void d7_resumeAfterOutage() throws Exception {
        DirectoryFixture fx = fx();
        Directory writer = fx.client();
        Publication gone = writer.publish("gone", bytes("v"), DirectoryFixture.TTL, PublicationListener.NONE);
        Directory cut = fx.client();
        WatchLog log = fx.watch(cut);
        log.awaitSnapshot(fx.msg("a new watch"));
        fx.deployment.cutOff(cut);
        log.await(l -> l.notices().contains("disconnected"), fx.msg("the watch did not say it was disconnected"));
        gone.close();
        writer.publish("joined", bytes("v"), DirectoryFixture.TTL, PublicationListener.NONE);
        writer.publish("changed", bytes("one"), DirectoryFixture.TTL, PublicationListener.NONE);
        writer.publish("changed", bytes("two"), DirectoryFixture.TTL, PublicationListener.NONE);
        fx.deployment.reconnect(cut);
        log.await(l -> l.notices().size() >= 2, fx.msg("the watch did not say it was back"));
        sync(fx, writer, log);
        assertEquals(List.of("disconnected"), log.notices().subList(0, 1), fx.msg("notices: " + log.notices()));
        assertEquals(1, log.notices().stream().filter(n -> n.equals("disconnected")).count(),
                fx.msg("one outage, one disconnect notice: " + log.notices()));
        Set<String> seen = new HashSet<>();
        for (DirectoryEvent e : log.changes()) {
            assertTrue(seen.add(e.key() + "@" + e.revision()), fx.msg(e + " delivered twice: " + log.changes()));
        }
        assertEquals(fx.watcher().content(), log.content(), fx.msg("after the outage the watch is not the directory's"
                + " content: " + log.events()));
    }

    @DirectoryRuleTest(D8)
    public final void d8_resyncAfterCompaction() throws Exception {
        require(DirectoryFault.OUTAGE);
        DirectoryFixture fx = fx();
        Directory writer = fx.client();
        Publication gone = writer.publish("gone", bytes("v"), DirectoryFixture.TTL, PublicationListener.NONE);
        Publication kept = writer.publish("kept", bytes("v"), DirectoryFixture.TTL, PublicationListener.NONE);
        writer.publish("changed", bytes("one"), DirectoryFixture.TTL, PublicationListener.NONE);
        Directory cut = fx.client();
        WatchLog log = fx.watch(cut);
        log.awaitSnapshot(fx.msg("a new watch"));
        fx.deployment.cutOff(cut);
        log.await(l -> l.notices().contains("disconnected"), fx.msg("the watch did not say it was disconnected"));
        gone.close();
        writer.publish("joined", bytes("v"), DirectoryFixture.TTL, PublicationListener.NONE);
        writer.publish("changed", bytes("two"), DirectoryFixture.TTL, PublicationListener.NONE);
        fx.deployment.compact();
        fx.deployment.reconnect(cut);
        log.await(l -> l.notices().contains("resynced"), fx.msg("the watch did not resync after its history was"
                + " compacted: " + log.notices()));
        sync(fx, writer, log);
        List<DirectoryEvent> events = log.events();
        int at = 0;
        while (!events.get(at).key().equals(WatchLog.RECONNECT_KEY)) {
            at++;
        }
        Map<String, DirectoryEvent.Type> differences = new java.util.TreeMap<>();
        for (DirectoryEvent e : events.subList(at + 1, events.size())) {
            if (e.isResync()) {
                assertTrue(differences.put(e.key(), e.type()) == null, fx.msg(e + " delivered twice: " + events));
            }
        }
        String prefix = writer.prefix();
        assertEquals(Map.of(prefix + "gone", DirectoryEvent.Type.DELETE, prefix + "joined", DirectoryEvent.Type.PUT,
                prefix + "changed", DirectoryEvent.Type.PUT), differences,
                fx.msg("the resync's differences (kept " + kept.key() + " is unchanged): " + events));
        assertEquals(fx.watcher().content(), log.content(), fx.msg("after the resync the watch is not the directory's"
                + " content"));
    }

    @DirectoryRuleTest(D9)
    public final void d9_leaseLoss() throws Exception {
        DirectoryFixture fx = fx();
        Directory a = fx.client();
        List<String> told = new CopyOnWriteArrayList<>();
        Publication p = a.publish("m", bytes("v"), DirectoryFixture.TTL, (pub, reason) -> told.add(reason));
        WatchLog log = fx.watcher();
        fx.deployment.loseLease("m");
        log.awaitDelete(p.key(), fx.msg("the entry of a revoked lease is still there"));
        fx.await(() -> !told.isEmpty(), () -> "the publication's listener was not told its lease was lost");
        assertTrue(p.isLost(), fx.msg("the publication does not say its lease was lost"));
        sync(fx, fx.client(), log);
        assertEquals(1, told.size(), fx.msg("told more than once: " + told));
        assertTrue(entry(fx.watcher().snapshot(), p.key()) == null, fx.msg("the directory published the entry again"
                + " by itself"));
        p.close();
    }

    @DirectoryRuleTest(D10)
    @SuppressWarnings("NullAway") // hands null to the directory on purpose, to check that it is refused
    public final void d10_badArguments() throws Exception {
        DirectoryFixture fx = fx();
        Directory a = fx.client();
        WatchLog log = fx.watcher();
        byte[] v = bytes("v");
        for (Duration ttl : List.of(Duration.ofSeconds(1), Duration.ZERO, Duration.ofSeconds(-3),
                Duration.ofMillis(2500), DirectoryLimits.MAX_TTL.plusSeconds(1))) {
            var e = assertThrows(IllegalArgumentException.class, () -> a.publish("m", v, ttl, PublicationListener.NONE),
                    fx.msg("a TTL of " + ttl + " was accepted"));
            assertTrue(String.valueOf(e.getMessage()).contains(ttl.toString()), fx.msg("the refusal does not name the"
                    + " TTL " + ttl + ": " + e.getMessage()));
        }
        for (String id : List.of("", "a/b", "x".repeat(DirectoryLimits.MAX_MEMBER_ID_LENGTH + 1), "has space")) {
            var e = assertThrows(IllegalArgumentException.class,
                    () -> a.publish(id, v, DirectoryFixture.TTL, PublicationListener.NONE),
                    fx.msg("member id '" + id + "' was accepted"));
            assertTrue(String.valueOf(e.getMessage()).contains("member id"), fx.msg(String.valueOf(e.getMessage())));
        }
        for (int size : List.of(1 << 20, DirectoryLimits.MAX_VALUE_BYTES + 1)) {
            var e = assertThrows(IllegalArgumentException.class,
                    () -> a.publish("m", new byte[size], DirectoryFixture.TTL, PublicationListener.NONE),
                    fx.msg("a value of " + size + " bytes was accepted"));
            assertTrue(String.valueOf(e.getMessage()).contains(String.valueOf(size)),
                    fx.msg(String.valueOf(e.getMessage())));
        }
        assertThrows(NullPointerException.class, () -> a.publish(null, v, DirectoryFixture.TTL,
                PublicationListener.NONE), fx.msg("a null member id"));
        assertThrows(NullPointerException.class, () -> a.publish("m", (byte[]) null, DirectoryFixture.TTL,
                PublicationListener.NONE), fx.msg("a null value"));
        assertThrows(NullPointerException.class, () -> a.publish("m", v, null, PublicationListener.NONE),
                fx.msg("a null TTL"));
        assertThrows(NullPointerException.class, () -> a.publish("m", v, DirectoryFixture.TTL, null),
                fx.msg("a null listener"));
        assertThrows(NullPointerException.class, () -> a.watch(null), fx.msg("a null watch listener"));
        sync(fx, a, log);
        assertEquals(1, log.changes().size(), fx.msg("a refused call published something: " + log.changes()));
    }

    @DirectoryRuleTest(D11)
    public final void d11_close() throws Exception {
        DirectoryFixture fx = fx();
        Directory a = fx.client();
        Publication p = a.publish("m", bytes("v"), DirectoryFixture.TTL, PublicationListener.NONE);
        WatchLog own = fx.watch(a);
        own.awaitSnapshot(fx.msg("a watch"));
        WatchLog other = fx.watcher();
        a.close();
        a.close();
        other.awaitDelete(p.key(), fx.msg("closing the directory did not say goodbye for " + p.key()));
        var e = assertThrows(IllegalStateException.class, () -> a.publish("n", bytes("v"), DirectoryFixture.TTL,
                PublicationListener.NONE), fx.msg("publish after close"));
        assertFalse(String.valueOf(e.getMessage()).isBlank(), fx.msg("no message"));
        assertThrows(IllegalStateException.class, () -> a.watch(new WatchLog(fx.env.timeout())),
                fx.msg("watch after close"));
        p.close();
        int calls = own.calls();
        Directory b = fx.client();
        sync(fx, b, other);
        assertEquals(calls, own.calls(), fx.msg("a watch of a closed directory still delivered: " + own.events()));
        assertTrue(entry(fx.watcher().snapshot(), a.prefix() + "n") == null, fx.msg("publish after close wrote"));
    }

    @DirectoryRuleTest(D12)
    public final void d12_listenerThreads() throws Exception {
        DirectoryFixture fx = fx();
        Directory a = fx.client();
        Directory watched = fx.client();
        AtomicInteger throwingCalls = new AtomicInteger();
        List<String> throwingThreads = new CopyOnWriteArrayList<>();
        String caller = Thread.currentThread().getName();
        DirectoryListener throwing = new DirectoryListener() {
            @Override
            public void snapshot(DirectorySnapshot snapshot) {
                throwingCalls.incrementAndGet();
                throwingThreads.add(Thread.currentThread().getName());
                throw new IllegalStateException("a listener bug (thrown on purpose by the kit)");
            }

            @Override
            public void changed(DirectoryEvent event) {
                throwingCalls.incrementAndGet();
                throwingThreads.add(Thread.currentThread().getName());
                throw new IllegalStateException("a listener bug (thrown on purpose by the kit)");
            }
        };
        var w = watched.watch(throwing);
        WatchLog log = fx.watch(watched);
        log.awaitSnapshot(fx.msg("a watch beside a throwing one"));
        for (int i = 0; i < 5; i++) {
            a.publish("m" + i, bytes("v"), DirectoryFixture.TTL, PublicationListener.NONE);
        }
        sync(fx, a, log);
        fx.await(() -> throwingCalls.get() >= 7, () -> "a listener that threw got " + throwingCalls.get()
                + " calls; the snapshot and seven puts were due");
        w.close();
        assertFalse(log.overlapped(), fx.msg("two calls of one listener overlapped"));
        for (String t : log.threads()) {
            assertFalse(t.equals(caller), fx.msg("a listener was called on the caller's thread " + t));
        }
        assertFalse(throwingThreads.contains(caller), fx.msg("a listener was called on the caller's thread"));
    }

    @DirectoryRuleTest(D13)
    public final void d13_unreachable() throws Exception {
        DirectoryFixture fx = fx();
        Directory a = fx.client();
        fx.deployment.cutOff(a);
        Duration limit = a.operationTimeout().plusSeconds(2);
        for (String call : List.of("publish", "watch")) {
            long start = System.nanoTime();
            var e = assertThrows(DirectoryUnavailableException.class, () -> {
                if (call.equals("publish")) {
                    a.publish("m", bytes("v"), DirectoryFixture.TTL, PublicationListener.NONE);
                } else {
                    a.watch(new WatchLog(fx.env.timeout()));
                }
            }, fx.msg(call + " on an unreachable directory"));
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertTrue(took.compareTo(limit) <= 0, fx.msg(call + " took " + took.toMillis() + " ms, above the"
                    + " operation timeout of " + a.operationTimeout().toMillis() + " ms (+2 s)"));
            assertTrue(String.valueOf(e.getMessage()).contains(a.toString()), fx.msg("the error does not name the"
                    + " directory '" + a + "': " + e.getMessage()));
        }
        fx.deployment.reconnect(a);
        Publication p = a.publish("m", bytes("v"), DirectoryFixture.TTL, PublicationListener.NONE);
        assertTrue(entry(fx.watcher().snapshot(), p.key()) != null, fx.msg("publish failed after the outage"));
    }
}
