package io.blockxfer.directory.etcd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryEntry;
import io.blockxfer.directory.DirectoryEvent;
import io.blockxfer.directory.DirectorySnapshot;
import io.blockxfer.directory.DirectoryUnavailableException;
import io.blockxfer.directory.DirectoryWatch;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import io.blockxfer.tck.process.EtcdCluster;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Txn;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The etcd directory against a real one-member etcd (the system's {@code etcd}, started by the
 * test): publish, watch, update, goodbye; raw writes delivered as they are; listings larger than
 * gRPC's default response limit; a lease revoked by someone else; a client cut off and back,
 * resuming, and resyncing after a compaction. Each test has a prefix of its own.
 */
class EtcdDirectoryTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Duration TTL = Duration.ofSeconds(3);

    private static EtcdCluster cluster;
    private EtcdDeployment deployment;

    @BeforeAll
    static void startEtcd() {
        cluster = EtcdCluster.start(1);
    }

    @AfterAll
    static void stopEtcd() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void deploy() {
        deployment = EtcdDeployment.on(cluster);
    }

    @AfterEach
    void undeploy() {
        deployment.close();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(DirectoryEntry e) {
        return new String(e.value(), StandardCharsets.UTF_8);
    }

    @Test
    void publishWatchUpdateGoodbye() {
        Directory a = deployment.connect();
        Directory b = deployment.connect();
        String p = deployment.prefix();
        Publication first = a.publish("alpha", bytes("a1"), TTL, PublicationListener.NONE);
        assertEquals(p + "alpha", first.key());
        assertEquals("alpha", first.memberId());
        assertEquals(TTL, first.ttl());
        assertTrue(first.revision() > 0);
        assertFalse(first.isLost());

        Recorder watcher = new Recorder();
        DirectoryWatch watch = b.watch(watcher);
        DirectorySnapshot snapshot = watcher.awaitSnapshot(WAIT);
        assertEquals(List.of(p + "alpha"), snapshot.entries().stream().map(DirectoryEntry::key).toList());
        assertEquals(first.revision(), snapshot.entries().getFirst().revision());
        assertTrue(snapshot.revision() >= first.revision());

        // update: a new publication under the same id replaces the entry
        Publication second = a.publish("alpha", bytes("a2"), TTL, PublicationListener.NONE);
        assertTrue(second.revision() > first.revision());
        Publication beta = b.publish("beta", bytes("b1"), TTL, PublicationListener.NONE);
        watcher.awaitView(v -> v.containsKey(p + "beta") && "a2".equals(text(v.get(p + "alpha"))), WAIT,
                "the update of alpha and beta's put");
        assertEquals(second.revision(), watcher.view().get(p + "alpha").revision());

        // goodbye: closing revokes the lease, which deletes the entry, seen at once
        long before = System.nanoTime();
        beta.close();
        watcher.awaitView(v -> !v.containsKey(p + "beta"), WAIT, "beta's delete");
        long goodbyeMillis = (System.nanoTime() - before) / 1_000_000;
        assertTrue(goodbyeMillis < 2000, "goodbye took " + goodbyeMillis + " ms");
        beta.close(); // idempotent
        assertFalse(beta.isLost());
        // the first publication's lease still renews but holds no key: closing it deletes nothing
        first.close();
        second.close();
        watcher.awaitView(Map::isEmpty, WAIT, "alpha's delete");
        List<DirectoryEvent> events = watcher.events();
        assertEquals(List.of("PUT alpha", "PUT beta", "DELETE beta", "DELETE alpha"),
                events.stream().map(e -> e.type() + " " + e.key().substring(p.length())).toList(),
                watcher.describe());
        assertEquals(watch.revision(), events.getLast().revision());
        assertEquals(List.of(), watcher.violations());
        watch.close();
        watch.close();
    }

    @Test
    void leasesAreRenewedWellBeyondTheirTtl() {
        Directory a = deployment.connect();
        Recorder watcher = new Recorder();
        deployment.connect().watch(watcher);
        watcher.awaitSnapshot(WAIT);
        List<String> lost = new CopyOnWriteArrayList<>();
        Publication pub = a.publish("steady", bytes("s"), Duration.ofSeconds(2), (p, why) -> lost.add(why));
        deployment.elapse(Duration.ofSeconds(7)); // 3.5 TTLs
        assertFalse(pub.isLost(), String.valueOf(lost));
        assertEquals(List.of(), lost);
        assertEquals(List.of("PUT " + deployment.prefix() + "steady"), watcher.events().stream()
                .map(e -> e.type() + " " + e.key()).toList(), watcher.describe());
    }

    @Test
    void rawWritesAreDeliveredAsTheyAre() {
        Directory a = deployment.connect();
        Recorder watcher = new Recorder();
        a.watch(watcher);
        watcher.awaitSnapshot(WAIT);
        String p = deployment.prefix();
        byte[] garbage = {(byte) 0xff, 0, (byte) 0xfe, 1, 2, 3};
        byte[] mebibyte = new byte[1024 * 1024];
        Arrays.fill(mebibyte, (byte) 'x');
        deployment.putRaw(p + "garbage", garbage);
        deployment.putRaw(p + "huge", mebibyte);
        deployment.putRaw(p + "deeper/key", bytes("d"));
        deployment.putRaw("/elsewhere" + p + "outside", bytes("o")); // outside the prefix: never seen
        deployment.putRaw(p.substring(0, p.length() - 1) + "x", bytes("sibling")); // the prefix without its '/'
        deployment.deleteRaw(p + "garbage");
        deployment.putRaw(p + "last", bytes("l"));
        watcher.awaitView(v -> v.containsKey(p + "last"), WAIT, "the last raw write");
        List<String> seen = watcher.events().stream().map(e -> e.type() + " " + e.key().substring(p.length()) + " "
                + e.valueLength()).toList();
        assertEquals(List.of("PUT garbage 6", "PUT huge 1048576", "PUT deeper/key 1", "DELETE garbage 0",
                "PUT last 1"), seen, watcher.describe());
        assertArrayEquals(garbage, watcher.events().getFirst().value());
        assertArrayEquals(mebibyte, watcher.view().get(p + "huge").value());

        // a new watch lists them as they are, the 1 MiB value included
        Recorder second = new Recorder();
        deployment.connect().watch(second);
        DirectorySnapshot snapshot = second.awaitSnapshot(WAIT);
        assertEquals(List.of(p + "deeper/key", p + "huge", p + "last"),
                snapshot.entries().stream().map(DirectoryEntry::key).toList());
        assertEquals(1024 * 1024, snapshot.entries().get(1).valueLength());
        assertEquals(List.of(), watcher.violations());
        assertEquals(List.of(), second.violations());
        deployment.deleteRaw("/elsewhere" + p + "outside");
        deployment.deleteRaw(p.substring(0, p.length() - 1) + "x");
    }

    @Test
    void listingsLargerThanGrpcsDefaultResponseLimitArePaged() {
        // 2,000 entries of 3 KB: 6 MB, above gRPC's default 4 MiB response limit
        String p = deployment.prefix();
        byte[] value = new byte[3 * 1024];
        Arrays.fill(value, (byte) 'v');
        int count = 2000;
        for (int start = 0; start < count; start += 100) {
            List<Op> puts = new ArrayList<>();
            for (int i = start; i < Math.min(count, start + 100); i++) {
                puts.add(Op.put(EtcdDeployment.bytes(p + String.format("m%05d", i)), ByteSequence.from(value),
                        PutOption.DEFAULT));
            }
            Txn txn = deployment.admin().getKVClient().txn();
            EtcdDeployment.admin(txn.Then(puts.toArray(Op[]::new)).commit());
        }
        Recorder watcher = new Recorder();
        deployment.connect().watch(watcher);
        DirectorySnapshot snapshot = watcher.awaitSnapshot(WAIT);
        assertEquals(count, snapshot.entries().size());
        assertEquals(p + "m00000", snapshot.entries().getFirst().key());
        assertEquals(p + String.format("m%05d", count - 1), snapshot.entries().getLast().key());
        assertTrue(snapshot.entries().stream().allMatch(e -> e.valueLength() == value.length));
    }

    @Test
    void aLeaseRevokedBySomeoneElseIsReportedLostOnce() {
        Directory a = deployment.connect();
        Recorder watcher = new Recorder();
        deployment.connect().watch(watcher);
        watcher.awaitSnapshot(WAIT);
        List<String> lost = new CopyOnWriteArrayList<>();
        List<String> threads = new CopyOnWriteArrayList<>();
        Publication pub = a.publish("victim", bytes("v"), Duration.ofSeconds(3), (p, why) -> {
            lost.add(why);
            threads.add(Thread.currentThread().getName());
        });
        deployment.loseLease("victim");
        watcher.awaitView(v -> !v.containsKey(deployment.prefix() + "victim"), WAIT, "the victim's delete");
        // the next renewal (a third of the TTL) finds the lease gone
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (lost.isEmpty() && System.nanoTime() < deadline) {
            EtcdCluster.sleep(20);
        }
        assertEquals(1, lost.size(), String.valueOf(lost));
        assertTrue(pub.isLost());
        assertTrue(lost.getFirst().contains("no longer holds lease"), lost.getFirst());
        assertTrue(threads.getFirst().startsWith("blockxfer-directory-"), threads.getFirst());
        deployment.elapse(Duration.ofSeconds(2));
        assertEquals(1, lost.size(), "reported once: " + lost);
        pub.close(); // does nothing after a loss
        assertTrue(pub.isLost());
    }

    @Test
    void aCutOffClientFailsInTimeThenResumes() {
        Directory a = deployment.connect();
        Recorder watcher = new Recorder();
        a.watch(watcher);
        watcher.awaitSnapshot(WAIT);
        Directory other = deployment.connect();
        String p = deployment.prefix();
        Publication before = other.publish("before", bytes("1"), TTL, PublicationListener.NONE);
        watcher.awaitView(v -> v.containsKey(p + "before"), WAIT, "before's put");

        deployment.cutOff(a);
        watcher.awaitCallback("disconnected", WAIT);
        long start = System.nanoTime();
        DirectoryUnavailableException e = assertThrows(DirectoryUnavailableException.class,
                () -> a.publish("cut", bytes("c"), TTL, PublicationListener.NONE));
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(millis <= a.operationTimeout().toMillis() + 1000, "failed after " + millis + " ms");
        assertTrue(e.getMessage().contains("127.0.0.1:"), e.getMessage());
        Publication during = other.publish("during", bytes("2"), TTL, PublicationListener.NONE);
        before.close();

        deployment.reconnect(a);
        watcher.awaitView(v -> v.containsKey(p + "during") && !v.containsKey(p + "before"), Duration.ofSeconds(30),
                "the changes made while cut off");
        Recorder.Callback reconnected = watcher.awaitCallback("reconnected", WAIT);
        assertFalse(reconnected.what().endsWith("resync"), reconnected.what());
        assertEquals(1, watcher.callbacks("disconnected").size());
        assertEquals(List.of(), watcher.violations());
        during.close();
    }

    @Test
    void aCompactionWhileCutOffForcesAResync() {
        Directory a = deployment.connect();
        Recorder watcher = new Recorder();
        a.watch(watcher);
        Directory other = deployment.connect();
        String p = deployment.prefix();
        Publication gone = other.publish("gone", bytes("1"), TTL, PublicationListener.NONE);
        Publication changed = other.publish("changed", bytes("1"), TTL, PublicationListener.NONE);
        watcher.awaitView(v -> v.size() == 2, WAIT, "two entries");
        deployment.cutOff(a);
        watcher.awaitCallback("disconnected", WAIT);
        gone.close();
        Publication changed2 = other.publish("changed", bytes("2"), TTL, PublicationListener.NONE);
        Publication added = other.publish("added", bytes("3"), TTL, PublicationListener.NONE);
        deployment.compact();
        deployment.reconnect(a);
        watcher.awaitView(v -> v.size() == 2 && v.containsKey(p + "added") && "2".equals(text(v.get(p + "changed"))),
                Duration.ofSeconds(30), "the resync");
        Recorder.Callback reconnected = watcher.awaitCallback("reconnected", WAIT);
        assertTrue(reconnected.what().endsWith("resync"), watcher.describe());
        List<DirectoryEvent> resync = watcher.events().stream().filter(DirectoryEvent::isResync).toList();
        assertEquals(List.of("PUT changed", "PUT added", "DELETE gone"),
                resync.stream().map(e -> e.type() + " " + e.key().substring(p.length())).toList(), watcher.describe());
        assertEquals(List.of(), watcher.violations());
        // live events follow the resync
        added.close();
        watcher.awaitView(v -> !v.containsKey(p + "added"), WAIT, "a live delete after the resync");
        assertEquals(List.of(), watcher.violations());
        changed.close();
        changed2.close();
    }

    @Test
    void aCrashedClientLeavesItsEntryToExpire() {
        Directory doomed = deployment.connect();
        Recorder silent = new Recorder();
        doomed.watch(silent);
        silent.awaitSnapshot(WAIT);
        Recorder watcher = new Recorder();
        deployment.connect().watch(watcher);
        watcher.awaitSnapshot(WAIT);
        String p = deployment.prefix();
        doomed.publish("doomed", bytes("d"), Duration.ofSeconds(2), PublicationListener.NONE);
        watcher.awaitView(v -> v.containsKey(p + "doomed"), WAIT, "the put");
        silent.awaitView(v -> v.containsKey(p + "doomed"), WAIT, "its own put"); // before counting what it said
        int before = silent.callbacks().size();
        long crashed = System.nanoTime();
        deployment.crash(doomed);
        watcher.awaitView(v -> !v.containsKey(p + "doomed"), Duration.ofSeconds(2).plus(deployment.expiryGrace())
                .plusSeconds(2), "the expiry");
        long millis = (System.nanoTime() - crashed) / 1_000_000;
        assertTrue(millis >= 1000, "deleted " + millis + " ms after the crash: a goodbye, not an expiry");
        assertEquals(before, silent.callbacks().size(), "a crashed client's watch said something: " + silent.describe());
        assertThrows(IllegalStateException.class, () -> doomed.watch(new Recorder()));
    }

    @Test
    void closeSaysGoodbyeForEveryPublicationAndStopsEveryWatch() {
        EtcdDirectory a = deployment.connect(EtcdDeployment.OPERATION_TIMEOUT);
        Recorder own = new Recorder();
        a.watch(own);
        Recorder watcher = new Recorder();
        deployment.connect().watch(watcher);
        Publication one = a.publish("one", bytes("1"), TTL, PublicationListener.NONE);
        a.publish("two", bytes("2"), TTL, PublicationListener.NONE);
        watcher.awaitView(v -> v.size() == 2, WAIT, "two entries");
        a.close();
        watcher.awaitView(Map::isEmpty, WAIT, "both goodbyes");
        assertTrue(a.isClosed());
        assertFalse(one.isLost());
        a.close(); // idempotent
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> a.publish("three", bytes("3"), TTL, PublicationListener.NONE));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> a.watch(new Recorder()));
        assertNotNull(a.prefix());
        assertEquals(List.of(), own.violations());
        // the directory's own threads are gone
        String name = a.name();
        List<String> left = Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                .filter(t -> t.equals("blockxfer-etcd-" + name) || t.equals("blockxfer-directory-" + name)).toList();
        assertEquals(List.of(), left, "threads of " + a + " still running after close");
    }
}
