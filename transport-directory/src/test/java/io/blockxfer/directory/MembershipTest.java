package io.blockxfer.directory;

import static io.blockxfer.directory.Writes.assertWriteLands;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.directory.memory.InMemoryCluster;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Membership over loopback transports and the in-memory directory: what needs a clock of the
 * test's own (coalescing), JFR, and the choices this module made. The conformance kit's directory
 * suite checks the contract itself (joins, leaves, refusals, outages) against every directory.
 */
class MembershipTest {

    private static final String PREFIX = "/kv/test/";
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

    private @org.jspecify.annotations.Nullable Directory side;

    /**
     * Publishes an entry of {@code id} at {@code epoch} as that member's process would: from a
     * client of its own, under a new lease the entry names.
     */
    private void publishAs(String id, long epoch, io.blockxfer.transport.PeerDescriptor d) {
        Directory s = side;
        if (s == null) {
            s = client();
            side = s;
        }
        s.publish(id, lease -> MemberEntry.of(id, epoch, lease, d).encode(RING), Duration.ofSeconds(30),
                PublicationListener.NONE);
    }

    private DataTransport transport(String agent) {
        return keep(Transports.open(TransportConfig.builder(RegionSpec.allocate(8, 256)).transport("loopback")
                .agentName(agent).keyRing(RING).build()));
    }

    private Directory client() {
        return keep(cluster.connect(PREFIX));
    }

    private Membership.Builder builder(DataTransport t, Recorder r) {
        return Membership.builder(t, client()).keyRing(RING).ttl(Duration.ofSeconds(5)).listener(r);
    }

    /** Writes a garbage entry under a marker key and waits until {@code r} refused it: all before it was handled. */
    private void sync(Recorder r) throws InterruptedException {
        String key = PREFIX + "marker-" + System.nanoTime();
        cluster.put(key, "garbage".getBytes(StandardCharsets.US_ASCII));
        r.await("refused MALFORMED " + key);
    }

    @Test
    void aFlappingMemberChangesInTheTransportOncePerInterval() throws Exception {
        ManualTicker ticker = new ManualTicker();
        Recorder ra = new Recorder();
        DataTransport ta = transport("a");
        DataTransport tb = transport("b");
        keep(builder(ta, ra).ticker(ticker).build());
        publishAs("b", 1, tb.localDescriptor());
        ra.await("added b 1");
        for (int epoch = 2; epoch <= 10; epoch++) {
            cluster.delete(PREFIX + "b");
            publishAs("b", epoch, tb.localDescriptor());
        }
        sync(ra);
        assertEquals(0, ra.count("updated") + ra.count("removed"), "changes within the interval wait: " + ra.lines());
        ticker.advance(Duration.ofSeconds(1));
        ra.await("updated b 10");
        sync(ra);
        assertEquals(1, ra.count("updated b"), ra.lines().toString());
        assertEquals(0, ra.count("removed"), ra.lines().toString());
        assertWriteLands(ta, "b", tb, (byte) 5);
    }

    @Test
    void aRestartWithinTheIntervalIsOneReAddAndWritesReachTheNewRegion() throws Exception {
        ManualTicker ticker = new ManualTicker();
        Recorder ra = new Recorder();
        DataTransport ta = transport("a");
        keep(builder(ta, ra).ticker(ticker).build());
        DataTransport tb = transport("b");
        Membership b = builder(tb, new Recorder()).build();
        String added = ra.await("added b ");
        b.close();
        tb.close();
        DataTransport tb2 = transport("b");
        Membership b2 = keep(builder(tb2, new Recorder()).build());
        sync(ra);
        assertEquals(0, ra.count("removed"), "the goodbye waits one interval: " + ra.lines());
        ticker.advance(Duration.ofSeconds(1));
        String updated = ra.await("updated b ");
        assertEquals("updated b " + b2.epoch(), updated);
        assertTrue(b2.epoch() > Long.parseLong(added.substring("added b ".length())));
        assertEquals(0, ra.count("removed"), ra.lines().toString());
        assertWriteLands(ta, "b", tb2, (byte) 9);
    }

    @Test
    void anOlderProcessUnderTheSameMemberIdStopsPublishingOnceANewerOneTookIt() throws Exception {
        Recorder first = new Recorder();
        Membership x = keep(builder(transport("x-one"), first).memberId("x").build());
        Recorder second = new Recorder();
        Membership y = keep(builder(transport("x-two"), second).memberId("x").build());
        String refusal = first.await("refused MEMBER_ID_IN_USE");
        assertTrue(refusal.contains("'x'") && refusal.contains(String.valueOf(y.epoch())), refusal);
        assertTrue(y.epoch() > x.epoch(), "a process starting under a used id publishes above its epoch");
        assertEquals("superseded " + x.epoch() + " " + y.epoch(), first.await("superseded "));
        Recorder reader = new Recorder();
        Membership r = keep(builder(transport("r"), reader).flapInterval(Duration.ZERO).followNone().build());
        assertEquals(y.epoch(), r.resolve("x").get(10, java.util.concurrent.TimeUnit.SECONDS), "the newer one");
        long newer = y.epoch();
        y.close(); // the newer one says goodbye: the older one does not take its key back
        reader.await("removed x " + newer);
        sync(first);
        assertTrue(cluster.get(PREFIX + "x").isEmpty(), "the older process restored or published its entry again");
        assertEquals(1, first.count("published"), "the first does not publish again: " + first.lines());
        assertEquals(0, first.count("restored"), first.lines().toString());
        assertEquals(0, second.count("refused MEMBER_ID_IN_USE"), second.lines().toString());
        java.util.concurrent.ExecutionException gone = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> r.resolve("x").get(10, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(MemberResolutionException.Reason.NO_SUCH_MEMBER,
                ((MemberResolutionException) gone.getCause()).reason(), String.valueOf(gone.getCause()));
    }

    @Test
    void aLostLeaseIsPublishedAgainOnceTheDirectoryIsBack() throws Exception {
        Recorder ra = new Recorder();
        Recorder rb = new Recorder();
        Directory da = client();
        DataTransport ta = transport("a");
        Membership a = keep(Membership.builder(ta, da).keyRing(RING).ttl(Duration.ofSeconds(5)).listener(ra).build());
        long firstEpoch = a.epoch();
        DataTransport tb = transport("b");
        keep(builder(tb, rb).flapInterval(Duration.ZERO).build());
        rb.await("added a " + firstEpoch);
        ra.await("added b "); // a holds b before it is cut off
        cluster.cutOff(da);
        cluster.advance(Duration.ofSeconds(5)); // paused past its TTL
        ra.await("lost " + firstEpoch);
        ra.await("publish-failed");
        rb.await("removed a " + firstEpoch);
        assertWriteLands(ta, "b", tb, (byte) 3); // transfers among known peers go on meanwhile
        cluster.reconnect(da);
        String republished = ra.await(l -> l.startsWith("published") && !l.equals("published " + firstEpoch),
                "a second publication");
        long second = Long.parseLong(republished.substring("published ".length()));
        assertTrue(second > firstEpoch);
        assertEquals(second, a.epoch());
        rb.await("added a " + second);
    }

    /**
     * A member that joined while this process was cut off arrives with the watch's return, queued
     * beside the publication that follows the loss: it is added once, not also re-registered as a
     * member held before the loss (reported added twice, as a three-member etcd outage showed).
     */
    @Test
    void aMemberThatJoinedDuringAnOutageIsAddedOnceAfterIt() throws Exception {
        for (int round = 0; round < 5; round++) {
            Recorder ra = new Recorder();
            Directory da = client();
            DataTransport ta = transport("a" + round);
            Membership a = keep(Membership.builder(ta, slowToPublish(da)).keyRing(RING).ttl(Duration.ofSeconds(5))
                    .flapInterval(Duration.ZERO).listener(ra).build());
            DataTransport tb = transport("b" + round);
            publishAs("b" + round, 1, tb.localDescriptor());
            ra.await("added b" + round + " 1");
            long first = a.epoch();
            cluster.cutOff(da);
            cluster.advance(Duration.ofSeconds(5));
            ra.await("lost " + first);
            DataTransport tf = transport("f" + round);
            publishAs("f" + round, 1, tf.localDescriptor()); // joins while a is away
            cluster.reconnect(da);
            ra.await("added f" + round + " 1");
            ra.await("reregistered b" + round + " 1");
            sync(ra);
            assertEquals(1, ra.count("added f" + round + " "), "round " + round + ": " + ra.lines());
            assertEquals(0, ra.count("reregistered f" + round), "round " + round + ": " + ra.lines());
            assertWriteLands(ta, "f" + round, tf, (byte) 2);
            a.close();
        }
    }

    /**
     * A publication whose write landed in the directory but whose answer was lost (etcd coming back
     * from an outage under load: the put committed, the client's deadline passed, the revoke failed
     * too) is this process's own entry, not another process's: the process publishes again at a
     * newer epoch, and is not superseded by what it wrote itself.
     */
    @Test
    void aPublicationReportedFailedWhoseWriteLandedIsNotTakenForAnotherProcess() throws Exception {
        Recorder ra = new Recorder();
        Recorder rb = new Recorder();
        Directory da = client();
        AtomicInteger landThenFail = new AtomicInteger();
        DataTransport ta = transport("a");
        Membership a = keep(Membership.builder(ta, landsThenFails(da, landThenFail)).keyRing(RING)
                .ttl(Duration.ofSeconds(5)).listener(ra).build());
        long first = a.epoch();
        DataTransport tb = transport("b");
        keep(builder(tb, rb).flapInterval(Duration.ZERO).build());
        rb.await("added a " + first);
        landThenFail.set(1);
        assertTrue(cluster.loseLease(PREFIX + "a"));
        ra.await("lost " + first);
        ra.await("publish-failed");
        String landed = rb.await(l -> l.startsWith("updated a ") || (l.startsWith("added a ")
                && !l.equals("added a " + first)), "the landed write seen by b");
        long landedEpoch = Long.parseLong(landed.substring(landed.lastIndexOf(' ') + 1));
        String again = ra.await(l -> l.startsWith("published ") && !l.equals("published " + first), "a publication");
        long second = Long.parseLong(again.substring("published ".length()));
        assertTrue(second > landedEpoch, "published again at " + second + ", above the landed " + landedEpoch);
        rb.await(l -> l.endsWith("a " + second), "b at the new epoch");
        sync(ra);
        assertEquals(0, ra.count("superseded"), "superseded by its own write: " + ra.lines());
        assertEquals(second, a.epoch());
        assertWriteLands(tb, "a", ta, (byte) 7);
    }

    /**
     * {@code d}, whose next {@code count} publications land and then fail as if their answer was
     * lost, their leases left to run out.
     */
    private static Directory landsThenFails(Directory d, AtomicInteger count) {
        return new Forwarding(d) {
            @Override
            public Publication publish(String memberId, @org.jspecify.annotations.Nullable String group,
                    java.util.function.LongFunction<byte[]> value, Duration ttl, PublicationListener listener) {
                Publication p = d.publish(memberId, group, value, ttl, listener);
                if (count.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                    throw new DirectoryUnavailableException("publish '" + memberId + "': no answer within the"
                            + " deadline (the write landed at revision " + p.revision() + ")");
                }
                return p;
            }
        };
    }

    /**
     * {@code d}, whose publications take 200 ms, as etcd's grant and put do over a slow link: what
     * the watch delivers meanwhile queues behind the publication.
     */
    private static Directory slowToPublish(Directory d) {
        return new Forwarding(d) {
            @Override
            public Publication publish(String memberId, @org.jspecify.annotations.Nullable String group,
                    java.util.function.LongFunction<byte[]> value, Duration ttl, PublicationListener listener) {
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return d.publish(memberId, group, value, ttl, listener);
            }
        };
    }

    /** A client that forwards every call to {@code d}; a test overrides what it changes. */
    private abstract static class Forwarding implements Directory {
        final Directory d;

        Forwarding(Directory d) {
            this.d = d;
        }

        @Override
        public String prefix() {
            return d.prefix();
        }

        @Override
        public Duration operationTimeout() {
            return d.operationTimeout();
        }

        @Override
        public DirectoryWatch watch(DirectoryScope scope, DirectoryListener listener) {
            return d.watch(scope, listener);
        }

        @Override
        public void close() {
            d.close();
        }
    }

    @Test
    void afterItsOwnLeaseWasLostEveryMemberHeldIsReRegisteredOnceAndNoneThatLeft(@TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("reregistration.jfr");
        ManualTicker ticker = new ManualTicker();
        Recorder ra = new Recorder();
        DataTransport ta = transport("a");
        Map<String, DataTransport> peers = new java.util.TreeMap<>();
        try (Recording recording = new Recording()) {
            recording.enable("blockxfer.MemberChange");
            recording.start();
            Membership a = keep(builder(ta, ra).ticker(ticker).build());
            for (String id : List.of("b", "c", "d", "e")) { // added once each here
                peers.put(id, transport(id));
                publishAs(id, 1, peers.get(id).localDescriptor());
                ra.await("added " + id + " 1");
            }
            cluster.delete(PREFIX + "e");
            sync(ra);
            ticker.advance(Duration.ofSeconds(1));
            ra.await("removed e 1"); // e left before the loss
            cluster.delete(PREFIX + "d"); // d's leaving waits for its interval: it is not held for good
            sync(ra);
            assertEquals(0, ra.count("reregistered"), "no loss, no re-registration: " + ra.lines());

            long first = a.epoch();
            assertTrue(cluster.loseLease(PREFIX + "a"));
            ra.await("lost " + first);
            ra.await("reregistered b 1");
            ra.await("reregistered c 1");
            sync(ra);
            long second = a.epoch();
            assertTrue(second > first);
            ticker.advance(Duration.ofSeconds(1));
            ra.await("removed d 1");
            sync(ra);
            List<String> changes = ra.lines().stream().filter(l -> !l.startsWith("refused")).toList();
            int lost = changes.indexOf(changes.stream().filter(l -> l.startsWith("lost ")).findFirst().orElseThrow());
            assertEquals(List.of("published " + second, "reregistered b 1", "reregistered c 1", "removed d 1"),
                    changes.subList(lost + 1, changes.size()), "after the loss: " + changes);
            assertWriteLands(ta, "b", peers.get("b"), (byte) 4);
            assertWriteLands(ta, "c", peers.get("c"), (byte) 6);

            assertTrue(cluster.loseLease(PREFIX + "a"));
            ra.await("lost " + second);
            ra.await(l -> l.equals("reregistered c 1") && ra.count("reregistered c") == 2, "a second re-registration");
            sync(ra);
            assertEquals(2, ra.count("reregistered b 1"), "once per loss: " + ra.lines());
            assertEquals(2, ra.count("reregistered c 1"), "once per loss: " + ra.lines());
            assertEquals(0, ra.count("reregistered d") + ra.count("reregistered e"), ra.lines().toString());
            assertEquals(4, ra.count("added "), "members that left are not re-added: " + ra.lines());
            assertEquals(Map.of("b", 1L, "c", 1L), a.members());
            recording.stop();
            recording.dump(file);
        }
        List<String> jfr = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("blockxfer.MemberChange")
                        && "re-registered".equals(e.getString("change")))
                .map(e -> e.getString("member")).toList();
        assertEquals(List.of("b", "c", "b", "c"), jfr);
    }

    @Test
    void aFailedRegistrationIsReportedAndTheMemberTriedAgainAtItsNextEpoch(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("registration.jfr");
        Recorder ra = new Recorder();
        DataTransport ta = transport("a");
        DataTransport dead = transport("dead");
        dead.feature(io.blockxfer.loopback.LoopbackFaults.class).orElseThrow().kill();
        try (Recording recording = new Recording()) {
            recording.enable("blockxfer.MemberChange");
            recording.enable("blockxfer.OwnEntry");
            recording.start();
            Directory da = client();
            keep(Membership.builder(ta, da).keyRing(RING).flapInterval(Duration.ZERO).listener(ra).build());
            publishAs("b", 1, dead.localDescriptor());
            String failed = ra.await("registration-failed b 1");
            assertTrue(failed.contains("Exception"), failed);
            assertTrue(!a(ra).contains("added b"), "a failed registration is no member: " + a(ra));
            DataTransport live = transport("b");
            publishAs("b", 2, live.localDescriptor());
            ra.await("added b 2");
            assertWriteLands(ta, "b", live, (byte) 2);
            cluster.loseLease(PREFIX + "a");
            ra.await("lost ");
            recording.stop();
            recording.dump(file);
        }
        List<String> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("blockxfer.MemberChange")
                        || e.getEventType().getName().equals("blockxfer.OwnEntry"))
                .map(e -> e.getEventType().getName() + " " + e.getString("change")).toList();
        assertTrue(events.contains("blockxfer.MemberChange registration-failed"), events.toString());
        assertTrue(events.contains("blockxfer.OwnEntry lease-lost"), events.toString());
    }

    private static String a(Recorder r) {
        return r.lines().stream().filter(l -> l.startsWith("added")).toList().toString();
    }

    @Test
    void aListenerThatThrowsDoesNotStopTheMembership() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        MembershipListener throwing = new MembershipListener() {
            @Override
            public void memberAdded(String memberId, long epoch) {
                calls.incrementAndGet();
                throw new IllegalStateException("listener bug");
            }
        };
        Recorder ra = new Recorder();
        Membership a = keep(Membership.builder(transport("a"), client()).keyRing(RING).listener(throwing)
                .listener(ra).build());
        keep(builder(transport("b"), new Recorder()).build());
        keep(builder(transport("c"), new Recorder()).build());
        ra.await("added b");
        ra.await("added c");
        assertEquals(2, calls.get(), "every call came, and the listener after the throwing one heard too");
        assertEquals(2, a.members().size());
    }

    @Test
    void closeSaysGoodbyeLeavesTheTransportAndItsPeersAndEndsTheApi() throws Exception {
        Recorder ra = new Recorder();
        Recorder rb = new Recorder();
        DataTransport ta = transport("a");
        DataTransport tb = transport("b");
        Membership a = builder(ta, ra).build();
        keep(builder(tb, rb).flapInterval(Duration.ZERO).build());
        ra.await("added b");
        rb.await("added a"); // else b may list the directory only after a's goodbye, and never hear of a
        long epoch = a.epoch();
        a.close();
        a.close();
        rb.await("removed a " + epoch);
        assertTrue(cluster.get(PREFIX + "a").isEmpty(), "the goodbye deletes the entry");
        assertWriteLands(ta, "b", tb, (byte) 4);
        assertThrows(IllegalStateException.class, a::members);
        assertThrows(IllegalStateException.class, a::epoch);
        assertEquals("a", a.memberId());
        assertTrue(a.isClosed());
        assertTrue(Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().equals("blockxfer-membership-a") && t.isAlive()), "its thread ended");
    }

    @Test
    void badArgumentsAreRefusedByName() {
        DataTransport t = transport("a");
        Directory d = client();
        var e = assertThrows(IllegalArgumentException.class, () -> Membership.builder(t, d).ttl(Duration.ofSeconds(1)));
        assertTrue(e.getMessage().contains("PT1S"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Membership.builder(t, d).ttl(Duration.ofHours(2)));
        e = assertThrows(IllegalArgumentException.class, () -> Membership.builder(t, d).memberId("a/b"));
        assertTrue(e.getMessage().contains("a/b"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Membership.builder(t, d).flapInterval(Duration.ofSeconds(-1)));
        assertThrows(NullPointerException.class, () -> Membership.builder(null, d));
        assertThrows(NullPointerException.class, () -> Membership.builder(t, null));
        DataTransport odd = transport("odd#name");
        e = assertThrows(IllegalArgumentException.class, () -> Membership.builder(odd, d).build());
        assertTrue(e.getMessage().contains("odd#name"), e.getMessage());
        DataTransport unsigned = keep(Transports.open(TransportConfig.builder(RegionSpec.allocate(8, 256))
                .transport("loopback").agentName("u").build()));
        e = assertThrows(IllegalArgumentException.class, () -> Membership.builder(unsigned, d).keyRing(RING).build());
        assertTrue(e.getMessage().contains("unsigned"), e.getMessage());
        assertTrue(cluster.get(PREFIX + "u").isEmpty() && cluster.get(PREFIX + "odd#name").isEmpty());
    }

    @Test
    void anUnreachableDirectoryFailsTheStartWithItsName() {
        Directory d = client();
        cluster.cutOff(d);
        var e = assertThrows(DirectoryUnavailableException.class,
                () -> Membership.builder(transport("a"), d).keyRing(RING).build());
        assertTrue(e.getMessage().contains("unreachable") && e.getMessage().contains(PREFIX), e.getMessage());
    }

    @Test
    void jfrRecordsMembersRefusalsConnectionsAndTheOwnEntry(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("membership.jfr");
        Directory da = client();
        try (Recording recording = new Recording()) {
            recording.enable("blockxfer.MemberChange");
            recording.enable("blockxfer.MemberRefused");
            recording.enable("blockxfer.DirectoryConnection");
            recording.enable("blockxfer.OwnEntry");
            recording.start();
            Recorder ra = new Recorder();
            keep(Membership.builder(transport("a"), da).keyRing(RING).flapInterval(Duration.ZERO).listener(ra)
                    .build());
            Membership b = builder(transport("b"), new Recorder()).build();
            ra.await("added b");
            sync(ra);
            cluster.cutOff(da);
            ra.await("disconnected");
            cluster.reconnect(da);
            ra.await("reconnected");
            b.close();
            ra.await("removed b");
            recording.stop();
            recording.dump(file);
        }
        Map<String, List<RecordedEvent>> byName = new java.util.HashMap<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            byName.computeIfAbsent(e.getEventType().getName(), k -> new ArrayList<>()).add(e);
        }
        List<String> changes = byName.getOrDefault("blockxfer.MemberChange", List.of()).stream()
                .filter(e -> "a".equals(e.getString("self"))).map(e -> e.getString("change") + " "
                        + e.getString("member")).toList();
        assertEquals(List.of("added b", "removed b"), changes);
        RecordedEvent refused = byName.get("blockxfer.MemberRefused").getFirst();
        assertEquals("MALFORMED", refused.getString("reason"));
        assertTrue(refused.getString("key").startsWith(PREFIX + "marker-"));
        assertTrue(byName.get("blockxfer.DirectoryConnection").stream().map(e -> e.getString("change")).toList()
                .containsAll(List.of("disconnected", "resumed")));
        assertTrue(byName.get("blockxfer.OwnEntry").stream().anyMatch(e -> "a".equals(e.getString("self"))
                && "published".equals(e.getString("change")) && e.getLong("epoch") > 0));
    }

    /**
     * A member's first registration can become writable on the transport's thread while the
     * membership's loop is busy, and the member's next epoch can reach the loop before the news of
     * that completion: the first registration is then superseded before the listeners heard of it,
     * and the next one must be told as the member added, not as an update of a member they never
     * heard of. The loop is held busy by a listener; b's first registration is held by the
     * transport until b's next entry is queued behind that listener.
     */
    @Test
    void aFirstRegistrationSupersededBeforeItWasToldIsToldAsAddedAtTheNextEpoch() throws Exception {
        CountDownLatch registeringB = new CountDownLatch(1);
        CompletableFuture<Void> releaseB = new CompletableFuture<>();
        CountDownLatch loopBusy = new CountDownLatch(1);
        CountDownLatch freeLoop = new CountDownLatch(1);
        MembershipListener holdsTheLoop = new MembershipListener() {
            @Override
            public void memberAdded(String memberId, long epoch) {
                if (memberId.equals("c")) {
                    loopBusy.countDown();
                    try {
                        freeLoop.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        };
        Recorder ra = new Recorder();
        AtomicBoolean first = new AtomicBoolean(true);
        DataTransport ta = HeldRegistrations.holding(transport("a"), id -> id.equals("b") && first.getAndSet(false),
                registeringB::countDown, releaseB);
        Membership a = keep(Membership.builder(ta, client()).keyRing(RING).flapInterval(Duration.ZERO).listener(ra)
                .listener(holdsTheLoop).build());
        DataTransport b1 = transport("b1");
        DataTransport b2 = transport("b2");
        publishAs("b", 1, b1.localDescriptor());
        assertTrue(registeringB.await(10, TimeUnit.SECONDS), "b's first registration did not start");
        publishAs("c", 1, transport("c").localDescriptor());
        assertTrue(loopBusy.await(10, TimeUnit.SECONDS), "c was not added");
        publishAs("b", 2, b2.localDescriptor());
        Thread.sleep(500); // the directory hands b's next entry to the loop, queued behind the listener
        releaseB.complete(null); // b's first registration is writable now; the loop hears of it after epoch 2
        freeLoop.countDown();
        ra.await("added b 2");
        sync(ra);
        assertEquals(List.of("added b 2"), ra.lines().stream().filter(l -> l.contains(" b ")).toList(),
                "b's first registration was superseded before anyone was told of it");
        assertEquals(Map.of("b", 2L, "c", 1L), a.members());
        assertWriteLands(ta, "b", b2, (byte) 5);
    }
}
