package io.blockxfer.tck;

import static io.blockxfer.tck.ConformanceRules.N1;
import static io.blockxfer.tck.ConformanceRules.N2;
import static io.blockxfer.tck.ConformanceRules.N3;
import static io.blockxfer.tck.ConformanceRules.N4;
import static io.blockxfer.tck.ConformanceRules.N5;
import static io.blockxfer.tck.ConformanceRules.N6;
import static io.blockxfer.tck.ConformanceRules.N7;
import static io.blockxfer.tck.ConformanceRules.N8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.Notification;
import io.blockxfer.transport.NotificationStats;
import io.blockxfer.transport.TransferFuture;
import io.blockxfer.transport.TransportConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * N: notifications reach the target after the bytes of their transfer, exactly once, named, bounded
 * and authenticated (the receiving side's waits, subscriber and close are checked by
 * {@link NotificationWaitRules}). The target checks each transfer's blocks the moment a
 * notification is delivered ({@link NotificationProbe}), in this JVM or in the target's process.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class NotificationRules extends RuleGroup {

    private static final AtomicInteger RUNS = new AtomicInteger();

    NotificationRules(TransportConformanceSuite suite) {
        super(suite);
    }

    /** A tag unique to this run of the rule, for payloads. */
    static String tag(Fixture fx, String what) {
        return fx.rule.name().toLowerCase(java.util.Locale.ROOT) + "-" + RUNS.incrementAndGet() + "-" + what;
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** The initiator's block seeds of {@code local}. */
    static long[] localSeeds(int[] local) {
        long[] seeds = new long[local.length];
        for (int i = 0; i < local.length; i++) {
            seeds[i] = BlockPattern.seed(Fixture.LOCAL, local[i]);
        }
        return seeds;
    }

    /** Takes exactly {@code count} notifications, failing with what came when fewer come in time. */
    static List<ReceivedNotification> take(Fixture fx, TargetPeer target, int count, String what) {
        List<ReceivedNotification> got = target.takeNotifications(count, fx.env.timeout());
        if (got.size() != count) {
            fail(fx.msg(what + ": the target received " + got.size() + " notification(s) within "
                    + fx.env.timeout().toMillis() + " ms, expected " + count + ": " + got));
        }
        return got;
    }

    /** Checks that the target receives nothing more for the kit's quiet period. */
    static void assertNoMore(Fixture fx, TargetPeer target, String what) {
        List<ReceivedNotification> more = target.takeNotifications(1, fx.env.quiet());
        if (!more.isEmpty()) {
            fail(fx.msg(what + ": the target received a notification it must not: " + more));
        }
    }

    @RuleTest(N1)
    public final void n1_writeNotificationAfterItsBytes() {
        require(Capability.NOTIFICATIONS);
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        a.addPeer("ini", t.localDescriptor());
        int[] local = {3, 9, 10, 11, 40, 63, 0, 17};
        int[] remote = {60, 2, 3, 4, 30, 0, 50, 17};
        String tag = tag(fx, "batch");
        byte[] payload = NotificationProbe.check(tag, remote, localSeeds(local));
        long id = fx.write(t, "a", 12, 45);
        long notified = t.writeBlocks("a", local, remote, payload);
        ReceivedNotification r = take(fx, a, 1, "a WRITE of 8 blocks with a notification").get(0);
        Notification n = r.notification();
        if (r.mismatchedBlock() != NotificationProbe.MATCHED) {
            fail(fx.msg("the notification of transfer " + notified + " was delivered before its bytes: block "
                    + r.mismatchedBlock() + " did not hold them yet when the target received it"));
        }
        assertEquals(Notification.Kind.WRITE, n.kind(), fx.msg("the kind of transfer " + notified + "'s notification"));
        assertEquals(notified, n.transferId(), fx.msg("the notification names its transfer's id"));
        assertTrue(n.payloadEquals(payload), fx.msg("the payload arrives intact: " + r.text()));
        assertEquals("ini", n.sender(), fx.msg("the sender is named by the peer id the target registered it under"));
        assertEquals(t.agentName(), n.senderAgent(), fx.msg("the sender's agent name"));
        fx.assertAllDone(fx.await(t, "a", List.of(id, notified)));
        assertNoMore(fx, a, "a transfer without a notification and one with");
        DataTransport stranger = fx.initiator();
        stranger.addPeer("a", a.descriptor());
        stranger.writeBlocks("a", new int[] {1}, new int[] {1},
                NotificationProbe.check(tag(fx, "stranger"), new int[] {1}, localSeeds(new int[] {1})));
        Notification s = take(fx, a, 1, "a WRITE from a sender the target did not register").get(0).notification();
        assertEquals(stranger.agentName(), s.sender(),
                fx.msg("a sender the target did not register is named by its agent name"));
    }

    @RuleTest(N2)
    public final void n2_readNotificationAfterTheReaderHasItsCopy() {
        require(Capability.READ);
        require(Capability.NOTIFICATIONS);
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        a.addPeer("reader", t.localDescriptor());
        int[] remote = {5, 6, 7, 20};
        int[] local = {30, 31, 32, 0};
        long[] overwrite = new long[remote.length];
        for (int i = 0; i < remote.length; i++) {
            overwrite[i] = BlockPattern.seed(Fixture.TARGET + 100, remote[i]);
        }
        // the owner overwrites its blocks the moment it hears "done reading"
        byte[] payload = NotificationProbe.fill(tag(fx, "read"), remote, overwrite);
        long id = t.readBlocks("a", local, remote, payload);
        CompletableFuture<List<ReceivedNotification>> owner = fx.start("owner takes the notification",
                () -> a.takeNotifications(1, fx.env.timeout()));
        fx.assertAllDone(fx.await(t, "a", List.of(id)));
        List<ReceivedNotification> got = owner.join();
        if (got.size() != 1) {
            fail(fx.msg("the owner received " + got.size() + " notifications of READ " + id + ", expected 1: " + got));
        }
        Notification n = got.get(0).notification();
        assertEquals(Notification.Kind.READ, n.kind(), fx.msg("the kind of READ " + id + "'s notification"));
        assertEquals(id, n.transferId(), fx.msg("the notification names its READ's id"));
        assertEquals("reader", n.sender(), fx.msg("the reader is named by the peer id the owner registered it under"));
        for (int i = 0; i < remote.length; i++) {
            fx.assertLocalBlock(t, local[i], BlockPattern.seed(Fixture.TARGET, remote[i]), "READ " + id
                    + " pair " + i + ": the reader's copy changed after the owner was told the READ ended (it was"
                    + " told before the READ had its bytes)");
        }
    }

    @RuleTest(N3)
    public final void n3_exactlyOnceUnderLoad() {
        require(Capability.NOTIFICATIONS);
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        int threads = 4;
        int each = 50;
        String run = tag(fx, "load");
        Map<String, Long> idsByTag = new ConcurrentHashMap<>();
        List<Long> polled = java.util.Collections.synchronizedList(new ArrayList<>());
        List<TransferFuture> futures = java.util.Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (int w = 0; w < threads; w++) {
            int worker = w;
            workers.add(fx.start("submitter " + w, () -> {
                for (int i = 0; i < each; i++) {
                    String tg = run + "-" + worker + "-" + i;
                    int block = (worker * each + i) % Fixture.BLOCKS;
                    byte[] p = ascii(tg);
                    switch (i % 3) {
                        case 0 -> {
                            polled.add(fx.write(t, "a", new int[] {block}, new int[] {block}));
                            long nid = t.writeBlocks("a", new int[] {block}, new int[] {block}, p);
                            polled.add(nid);
                            idsByTag.put(tg, nid);
                        }
                        case 1 -> {
                            TransferFuture f = t.writeBlocksAsync("a", new int[] {block}, new int[] {block}, p);
                            futures.add(f);
                            idsByTag.put(tg, f.transferId());
                        }
                        default -> {
                            if (!t.sendNotification("a", p)) {
                                fail(fx.msg("sendNotification to registered peer 'a' returned false"));
                            }
                            idsByTag.put(tg, -1L);
                        }
                    }
                }
                return null;
            }));
        }
        int expected = threads * each;
        List<ReceivedNotification> got = new ArrayList<>();
        long deadline = System.nanoTime() + fx.env.timeout().toNanos() * 3;
        while (got.size() < expected && System.nanoTime() < deadline) {
            got.addAll(a.takeNotifications(expected - got.size(), Duration.ofMillis(200)));
        }
        workers.forEach(CompletableFuture::join);
        fx.assertAllDone(fx.await(t, "a", polled));
        for (TransferFuture f : futures) {
            assertTrue((f.isDone() && !f.isCompletedExceptionally()) || waitFor(fx, f),
                    fx.msg("asynchronous transfer " + f.transferId() + " ends done: " + f));
        }
        Set<String> seen = new HashSet<>();
        for (ReceivedNotification r : got) {
            String tg = r.text();
            if (!seen.add(tg)) {
                fail(fx.msg("notification '" + tg + "' was delivered twice"));
            }
            Long id = idsByTag.get(tg);
            if (id == null) {
                fail(fx.msg("a notification nobody sent arrived: " + r));
                return;
            }
            assertEquals(id.longValue(), r.notification().transferId(), fx.msg("notification '" + tg + "' names transfer "
                    + r.notification().transferId() + ", not its own " + id));
        }
        if (got.size() != expected) {
            Set<String> missing = new HashSet<>(idsByTag.keySet());
            missing.removeAll(seen);
            fail(fx.msg(missing.size() + " of " + expected + " notifications sent from " + threads + " threads never"
                    + " arrived, e.g. " + missing.stream().sorted().limit(5).toList()));
        }
        assertNoMore(fx, a, "after every notification arrived once");
    }

    @RuleTest(N4)
    public final void n4_noneForRefusedOrFailedTransfers() {
        require(Capability.NOTIFICATIONS);
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        String refused = tag(fx, "refused");
        assertEquals(DataTransport.NOT_SUBMITTED, t.writeBlocks("nobody", new int[] {0}, new int[] {0},
                ascii(refused + "-unknown-peer")), fx.msg("a WRITE to an unknown peer is not submitted"));
        assertThrows(IllegalArgumentException.class, () -> t.writeBlocks("a", new int[] {0}, new int[] {Fixture.BLOCKS},
                ascii(refused + "-bad-index")), fx.msg("an out-of-range index is refused"));
        assertThrows(IllegalArgumentException.class, () -> t.writeBlocks("a", new int[] {0, 1}, new int[] {0},
                ascii(refused + "-unequal")), fx.msg("unequal index arrays are refused"));
        List<Long> failedIds = new ArrayList<>();
        String failed = tag(fx, "failed");
        InitiatorFaults faults = fx.faults(t).orElse(null);
        if (faults != null) {
            faults.failNextSubmits(3);
            for (int i = 0; i < 3; i++) {
                failedIds.add(t.writeBlocks("a", new int[] {i}, new int[] {i}, ascii(failed + "-" + i)));
            }
        }
        String good = tag(fx, "good");
        long goodId = t.writeBlocks("a", new int[] {5}, new int[] {5}, ascii(good));
        List<Long> all = new ArrayList<>(failedIds);
        all.add(goodId);
        Map<Long, Boolean> outcomes = fx.await(t, "a", all);
        for (long id : failedIds) {
            assertEquals(false, outcomes.getOrDefault(id, true), fx.msg("transfer " + id + " failed by an injected"
                    + " submit failure"));
        }
        assertEquals(true, outcomes.getOrDefault(goodId, false), fx.msg("transfer " + goodId + " after them is"
                + " done"));
        List<ReceivedNotification> got = new ArrayList<>(take(fx, a, 1, "the done transfer's notification"));
        got.addAll(a.takeNotifications(4, fx.env.quiet()));
        for (ReceivedNotification r : got) {
            String text = r.text();
            if (text.startsWith(refused)) {
                fail(fx.msg("a notification of a transfer refused at submit arrived: " + r));
            }
            if (text.startsWith(failed)) {
                fail(fx.msg("a notification of a transfer the backend reported failed arrived: " + r));
            }
        }
        assertEquals(1, got.size(), fx.msg("only the done transfer's notification arrives: " + got));
        assertEquals(good, got.get(0).text(), fx.msg("the done transfer's notification"));
        if (fx.canHold(a)) {
            fx.stall(a);
            String cancelled = tag(fx, "cancelled");
            long id = t.writeBlocks("a", new int[] {7}, new int[] {7}, heldNotification(cancelled, 7));
            t.cancel(new long[] {id}, CancelMode.IMMEDIATE);
            fx.thaw(a);
            assertAtMostOnceAfterItsBytes(fx, a, cancelled, id, "cancelled while held");
            DataTransport d = fx.initiator(fx.deadlineConfig());
            TargetPeer b = fx.connectedTarget(d, "b");
            fx.stall(b);
            String overdue = tag(fx, "overdue");
            long late = d.writeBlocks("b", new int[] {8}, new int[] {8}, heldNotification(overdue, 8));
            assertEquals(false, fx.await(d, "b", List.of(late)).get(late), fx.msg("transfer " + late
                    + ", held past its deadline, failed"));
            fx.thaw(b);
            assertAtMostOnceAfterItsBytes(fx, b, overdue, late, "failed by its deadline while held");
        }
    }

    private static byte[] heldNotification(String tag, int block) {
        return NotificationProbe.check(tag, new int[] {block}, localSeeds(new int[] {block}));
    }

    /**
     * N4's cancelled and overdue transfers: a notified WRITE held by a stalled target, cancelled at
     * once or failed by its deadline, then the target thaws; its bytes may still land, and its
     * notification may still come, but at most once, and only once the bytes are there (checked by
     * the target as it receives it).
     */
    private static void assertAtMostOnceAfterItsBytes(Fixture fx, TargetPeer target, String tag, long id,
            String how) {
        List<ReceivedNotification> got = new ArrayList<>();
        for (ReceivedNotification r : target.takeNotifications(2, fx.env.quiet())) {
            if (r.text().startsWith("tck:check:" + tag + ":")) {
                got.add(r);
            }
        }
        assertTrue(got.size() <= 1, fx.msg("the notification of transfer " + id + ", " + how + ", arrived "
                + got.size() + " times; at most once: " + got));
        for (ReceivedNotification r : got) {
            assertEquals(NotificationProbe.MATCHED, r.mismatchedBlock(), fx.msg("the notification of transfer " + id
                    + ", " + how + ", arrived before its bytes: block " + r.mismatchedBlock()
                    + " did not hold them yet when the target received it"));
        }
    }

    @RuleTest(N5)
    public final void n5_payloadBound() {
        require(Capability.NOTIFICATIONS);
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        byte[] tooLong = new byte[Notification.MAX_PAYLOAD_BYTES + 1];
        long submittedBefore = t.traffic("a").orElseThrow().submitted();
        List<Runnable> calls = List.of(
                () -> t.writeBlocks("a", new int[] {0}, new int[] {0}, tooLong),
                () -> {
                    var unused = t.writeBlocksAsync("a", new int[] {0}, new int[] {0}, tooLong);
                },
                () -> t.sendNotification("a", tooLong));
        for (Runnable call : calls) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run,
                    fx.msg("a notification of " + tooLong.length + " bytes is refused before anything is submitted"));
            assertTrue(String.valueOf(e.getMessage()).contains(Integer.toString(tooLong.length)),
                    fx.msg("the refusal names the length: " + e.getMessage()));
        }
        if (fx.has(Capability.READ)) {
            assertThrows(IllegalArgumentException.class, () -> t.readBlocks("a", new int[] {0}, new int[] {0}, tooLong),
                    fx.msg("a READ's notification of " + tooLong.length + " bytes is refused"));
        }
        assertEquals(submittedBefore, t.traffic("a").orElseThrow().submitted(),
                fx.msg("the refused calls submitted nothing"));
        byte[] longest = new byte[Notification.MAX_PAYLOAD_BYTES];
        for (int i = 0; i < longest.length; i++) {
            longest[i] = (byte) (i * 31 + 7);
        }
        long id = t.writeBlocks("a", new int[] {2}, new int[] {2}, longest);
        ReceivedNotification r = take(fx, a, 1, "a notification of the largest payload").get(0);
        assertTrue(r.notification().payloadEquals(longest),
                fx.msg("a payload of " + longest.length + " bytes arrives intact"));
        assertEquals(id, r.notification().transferId(), fx.msg("the notification names its transfer"));
        assertNoMore(fx, a, "after the refused notifications");
    }

    @RuleTest(N6)
    @SuppressWarnings("NullAway") // passes null where the API forbids it, on purpose: the rule is that it is refused
    public final void n6_messagesWithoutATransfer() {
        require(Capability.NOTIFICATIONS);
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        TargetPeer a = fx.connectedTarget(t, "a");
        a.addPeer("ini", t.localDescriptor());
        String tg = tag(fx, "done-reading");
        assertTrue(t.sendNotification("a", ascii(tg)), fx.msg("a message to a registered peer is handed over"));
        Notification n = take(fx, a, 1, "a message without a transfer").get(0).notification();
        assertEquals(Notification.Kind.MESSAGE, n.kind(), fx.msg("the kind of a message without a transfer"));
        assertEquals(-1, n.transferId(), fx.msg("a message without a transfer names no transfer"));
        assertTrue(n.payloadEquals(ascii(tg)), fx.msg("the message arrives intact"));
        assertEquals("ini", n.sender(), fx.msg("the sender is named by the peer id the target registered it under"));
        assertFalse(t.sendNotification("nobody", ascii(tg + "-unknown")), fx.msg("a message to an unknown peer"));
        assertThrows(NullPointerException.class, () -> t.sendNotification("a", null),
                fx.msg("a null message is refused"));
        assertTrue(t.removePeer("a"), fx.msg("removing the peer"));
        assertFalse(t.sendNotification("a", ascii(tg + "-removed")), fx.msg("a message to a removed peer"));
        assertNoMore(fx, a, "after messages that were not handed over");
        NotificationStats stats = t.notificationStats();
        assertEquals(1, stats.sent(), fx.msg("the sender counts one message sent: " + stats));
    }

    @RuleTest(N7)
    public final void n7_authenticatedWithAKeyRing() {
        require(Capability.NOTIFICATIONS);
        Fixture fx = fx();
        DeploymentKeyRing ring = TckKeys.ring(Map.of(tag(fx, "key"), TckKeys.randomKey()));
        fx.keyRing = ring;
        TargetPeer a = fx.target();
        DataTransport keyed = fx.initiator();
        keyed.addPeer("a", a.descriptor());
        fx.keyRing = null;
        DataTransport keyless = fx.initiator();
        keyless.addPeer("a", a.descriptor());
        fx.keyRing = TckKeys.ring(Map.of(tag(fx, "other-key"), TckKeys.randomKey()));
        DataTransport otherKey = fx.initiator(fx.config().toBuilder().acceptUnsignedPeers(true).build());
        otherKey.addPeer("a", a.descriptor().unsigned());
        fx.keyRing = null;
        String good = tag(fx, "keyed");
        keyed.writeBlocks("a", new int[] {1}, new int[] {1}, ascii(good));
        Notification n = take(fx, a, 1, "a notification from a process with the key").get(0).notification();
        assertTrue(n.payloadEquals(ascii(good)), fx.msg("the keyed notification arrives: " + n));
        assertTrue(n.authenticated(), fx.msg("a notification under the deployment's key is authenticated: " + n));
        long refusedBefore = a.notificationStats().refused();
        String forged = tag(fx, "forged");
        keyless.writeBlocks("a", new int[] {2}, new int[] {2}, ascii(forged + "-write"));
        keyless.sendNotification("a", ascii(forged + "-message"));
        otherKey.sendNotification("a", ascii(forged + "-other-key"));
        List<ReceivedNotification> got = a.takeNotifications(3, fx.env.quiet().multipliedBy(2));
        if (!got.isEmpty()) {
            fail(fx.msg("a target with a key ring delivered notifications of processes without its key: " + got));
        }
        long deadline = System.nanoTime() + fx.env.timeout().toNanos();
        while (a.notificationStats().refused() < refusedBefore + 3 && System.nanoTime() < deadline) {
            fx.sleep(Duration.ofMillis(20));
        }
        assertEquals(refusedBefore + 3, a.notificationStats().refused(),
                fx.msg("the target counts the three notifications it refused"));
    }

    @RuleTest(N8)
    public final void n8_boundedQueueDropsAndCounts() {
        require(Capability.NOTIFICATIONS);
        Fixture fx = fx();
        DataTransport t = fx.initiator();
        int capacity = 8;
        TransportConfig small = fx.config().toBuilder().notificationQueueCapacity(capacity).build();
        TargetPeer a = fx.target(small);
        t.addPeer("a", a.descriptor());
        int sent = capacity * 3;
        String tg = tag(fx, "flood");
        for (int i = 0; i < sent; i++) {
            assertTrue(t.sendNotification("a", ascii(tg + "-" + i)), fx.msg("message " + i + " handed over"));
        }
        NotificationStats s = a.notificationStats();
        long deadline = System.nanoTime() + fx.env.timeout().toNanos();
        while (s.received() + s.dropped() < sent && System.nanoTime() < deadline) {
            fx.sleep(Duration.ofMillis(20));
            s = a.notificationStats();
        }
        assertEquals(sent, s.received() + s.dropped(), fx.msg("every message either entered the queue or was"
                + " counted as dropped: " + s));
        assertTrue(s.queued() <= capacity, fx.msg("the queue holds at most its capacity " + capacity + ": " + s));
        assertEquals(sent - capacity, s.dropped(), fx.msg("the messages that found the queue full are counted: " + s));
        List<ReceivedNotification> first = a.takeNotifications(sent, fx.env.quiet());
        assertEquals(capacity, first.size(), fx.msg("the queue delivers what it held: " + first.size()));
        t.sendNotification("a", ascii(tg + "-after"));
        Notification next = take(fx, a, 1, "the sender's next message").get(0).notification();
        assertEquals(sent - capacity, next.droppedBefore(),
                fx.msg("the sender's next delivered message says how many of its own were dropped: " + next));
    }

    private static boolean waitFor(Fixture fx, TransferFuture f) {
        try {
            f.get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The payloads of {@code got}, for messages. */
    static Map<String, Integer> counts(List<ReceivedNotification> got) {
        Map<String, Integer> c = new HashMap<>();
        got.forEach(r -> c.merge(r.text(), 1, Integer::sum));
        return c;
    }
}
