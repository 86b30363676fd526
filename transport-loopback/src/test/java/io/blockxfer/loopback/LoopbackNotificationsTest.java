package io.blockxfer.loopback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.Notification;
import io.blockxfer.transport.NotificationStats;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Notifications on the loopback backend, as a prefill and a decode worker in one JVM use them: what
 * the target receives, when, under which name, and what a full queue, a key ring, a subscriber and
 * close do. The conformance kit's N rules check the same contract on every backend.
 */
class LoopbackNotificationsTest {

    private static final int BLOCK = 256;
    private final List<DataTransport> opened = new ArrayList<>();

    @AfterEach
    void closeAll() {
        opened.forEach(DataTransport::close);
    }

    private DataTransport open(String name, TransportConfig.Builder b) {
        DataTransport t = Transports.open(b.agentName(name).transport("loopback").build());
        opened.add(t);
        return t;
    }

    private DataTransport open(String name) {
        return open(name, TransportConfig.builder(RegionSpec.allocate(8, BLOCK)));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static void fill(DataTransport t, int block, byte value) {
        MemorySegment s = t.region().segment().asSlice((long) block * BLOCK, BLOCK);
        s.fill(value);
    }

    private static byte at(DataTransport t, int block) {
        return t.region().segment().get(ValueLayout.JAVA_BYTE, (long) block * BLOCK + BLOCK - 1);
    }

    private static List<Notification> await(DataTransport t, int count) throws InterruptedException {
        List<Notification> got = new ArrayList<>();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (got.size() < count && System.nanoTime() < end) {
            t.pollNotifications(got::add, 100, TimeUnit.MILLISECONDS);
        }
        return got;
    }

    @Test
    void aWritesNotificationArrivesAfterItsBytesOnceUnderThePeerIdTheTargetGaveTheSender() throws Exception {
        DataTransport prefill = open("prefill-0");
        DataTransport decode = open("decode-0");
        prefill.addPeer("d", decode.localDescriptor());
        decode.addPeer("p", prefill.localDescriptor());
        fill(prefill, 1, (byte) 7);
        byte[] seen = new byte[1];
        long id = prefill.writeBlocks("d", new int[] {1}, new int[] {5}, bytes("req-42"));
        List<Notification> got = new ArrayList<>();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (got.isEmpty() && System.nanoTime() < end) {
            decode.pollNotifications(n -> {
                seen[0] = at(decode, 5);
                got.add(n);
            }, 100, TimeUnit.MILLISECONDS);
        }
        assertEquals(1, got.size(), "one notification for one transfer");
        Notification n = got.get(0);
        assertEquals(7, seen[0], "the bytes were there when the notification was delivered");
        assertEquals("p", n.sender(), "named by the peer id the target registered the sender under");
        assertEquals("prefill-0", n.senderAgent());
        assertEquals(Notification.Kind.WRITE, n.kind());
        assertEquals(id, n.transferId());
        assertTrue(n.payloadEquals(bytes("req-42")));
        assertFalse(n.authenticated(), "no key ring, no authentication");
        assertEquals(0, decode.pollNotifications(x -> { }, 50, TimeUnit.MILLISECONDS), "never twice");
    }

    @Test
    void aSenderTheTargetDidNotRegisterIsNamedByItsAgentName() throws Exception {
        DataTransport reader = open("decode-1");
        DataTransport owner = open("prefill-1");
        reader.addPeer("owner", owner.localDescriptor());
        reader.readBlocks("owner", new int[] {0}, new int[] {0}, bytes("done reading"));
        List<Notification> got = await(owner, 1);
        assertEquals(1, got.size());
        assertEquals("decode-1", got.get(0).sender());
        assertEquals(Notification.Kind.READ, got.get(0).kind());
        assertTrue(reader.sendNotification("owner", bytes("bye")));
        List<Notification> more = await(owner, 1);
        assertEquals(Notification.Kind.MESSAGE, more.get(0).kind());
        assertEquals(-1, more.get(0).transferId());
        assertFalse(reader.sendNotification("nobody", bytes("x")), "an unknown peer gets nothing");
    }

    @Test
    void aPayloadTooLongIsRefusedBeforeAnythingIsSubmitted() {
        DataTransport a = open("a");
        DataTransport b = open("b");
        a.addPeer("b", b.localDescriptor());
        byte[] tooLong = new byte[Notification.MAX_PAYLOAD_BYTES + 1];
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> a.writeBlocks("b", new int[] {0}, new int[] {0}, tooLong));
        assertTrue(e.getMessage().contains("1025"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> a.sendNotification("b", tooLong));
        assertEquals(0, a.traffic("b").orElseThrow().submitted(), "nothing was submitted");
        assertEquals(0, a.notificationStats().sent());
    }

    @Test
    void aFullQueueDropsAndCountsAndTheSendersNextNotificationSaysHowMany() throws Exception {
        DataTransport a = open("a");
        DataTransport b = open("b", TransportConfig.builder(RegionSpec.allocate(8, BLOCK)).notificationQueueCapacity(4));
        a.addPeer("b", b.localDescriptor());
        for (int i = 0; i < 10; i++) {
            assertTrue(a.sendNotification("b", bytes("m" + i)));
        }
        List<Notification> first = new ArrayList<>();
        b.pollNotifications(first::add);
        assertEquals(4, first.size());
        assertTrue(a.sendNotification("b", bytes("after")));
        List<Notification> next = new ArrayList<>();
        b.pollNotifications(next::add);
        assertEquals(1, next.size());
        assertEquals(6, next.get(0).droppedBefore(), "the six that found the queue full");
        NotificationStats s = b.notificationStats();
        assertEquals(5, s.received());
        assertEquals(6, s.dropped());
        assertEquals(5, s.delivered());
    }

    @Test
    void withAKeyRingNotificationsAreAuthenticatedAndAProcessWithoutTheKeyIsRefused() throws Exception {
        byte[] key = new byte[32];
        key[0] = 1;
        DeploymentKeyRing ring = DeploymentKeyRing.of("k1", key);
        DataTransport a = open("a", TransportConfig.builder(RegionSpec.allocate(8, BLOCK)).keyRing(ring));
        DataTransport b = open("b", TransportConfig.builder(RegionSpec.allocate(8, BLOCK)).keyRing(ring));
        DataTransport intruder = open("intruder");
        a.addPeer("b", b.localDescriptor());
        intruder.addPeer("b", b.localDescriptor().unsigned());
        a.writeBlocks("b", new int[] {0}, new int[] {0}, bytes("landed"));
        List<Notification> got = await(b, 1);
        assertTrue(got.get(0).authenticated());
        long refusedBefore = b.notificationStats().refused();
        intruder.writeBlocks("b", new int[] {0}, new int[] {1}, bytes("landed too"));
        intruder.sendNotification("b", bytes("landed three"));
        assertEquals(0, b.pollNotifications(n -> { }, 300, TimeUnit.MILLISECONDS), "nothing without the key");
        assertEquals(refusedBefore + 2, b.notificationStats().refused());
    }

    @Test
    void aSubscriberGetsWhatItRequestsAndIsCompletedAtClose() throws Exception {
        DataTransport a = open("a");
        DataTransport b = Transports.open(TransportConfig.builder(RegionSpec.allocate(8, BLOCK)).agentName("b")
                .transport("loopback").build());
        a.addPeer("b", b.localDescriptor());
        List<Notification> got = new CopyOnWriteArrayList<>();
        CountDownLatch three = new CountDownLatch(3);
        CountDownLatch completed = new CountDownLatch(1);
        AtomicReference<Flow.Subscription> sub = new AtomicReference<>();
        b.notifications().subscribe(new Flow.Subscriber<>() {
            @Override public void onSubscribe(Flow.Subscription s) {
                sub.set(s);
                s.request(3);
            }
            @Override public void onNext(Notification n) {
                got.add(n);
                three.countDown();
            }
            @Override public void onError(Throwable t) {
            }
            @Override public void onComplete() {
                completed.countDown();
            }
        });
        for (int i = 0; i < 5; i++) {
            a.sendNotification("b", bytes("n" + i));
        }
        assertTrue(three.await(5, TimeUnit.SECONDS));
        Thread.sleep(100);
        assertEquals(3, got.size(), "no more than requested");
        assertEquals(2, b.notificationStats().queued(), "the rest wait in the queue");
        b.close();
        assertTrue(completed.await(5, TimeUnit.SECONDS), "close completes the subscriber");
        assertEquals(2, b.notificationStats().discarded());
    }

    @Test
    void closeEndsAWaitForNotifications() throws Exception {
        DataTransport b = Transports.open(TransportConfig.builder(RegionSpec.allocate(8, BLOCK)).agentName("b")
                .transport("loopback").build());
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread waiter = Thread.ofVirtual().start(() -> {
            try {
                b.pollNotifications(n -> { }, 30, TimeUnit.SECONDS);
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        Thread.sleep(100);
        b.close();
        waiter.join(5000);
        assertTrue(thrown.get() instanceof IllegalStateException, String.valueOf(thrown.get()));
    }

    @Test
    void theNotifyBeforeDataFaultDeliversANotificationWhoseBytesAreNotThereYet() throws Exception {
        DataTransport a = open("a");
        DataTransport b = open("b");
        a.addPeer("b", b.localDescriptor());
        fill(a, 2, (byte) 9);
        a.feature(LoopbackFaults.class).orElseThrow().notifyBeforeData(Duration.ofMillis(300));
        byte[] seen = new byte[1];
        a.writeBlocks("b", new int[] {2}, new int[] {3}, bytes("early"));
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        int n = 0;
        while (n == 0 && System.nanoTime() < end) {
            n = b.pollNotifications(x -> seen[0] = at(b, 3), 100, TimeUnit.MILLISECONDS);
        }
        assertEquals(1, n);
        assertEquals(0, seen[0], "the broken backend delivered before the bytes");
    }

    @Test
    void aRecordingHoldsTheNotificationEvents(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path file = dir.resolve("notifications.jfr");
        try (jdk.jfr.Recording recording = new jdk.jfr.Recording()) {
            for (String name : List.of("NotificationSent", "NotificationReceived", "NotificationRefused",
                    "NotificationsDropped")) {
                recording.enable("blockxfer." + name).withoutThreshold();
            }
            recording.start();
            DataTransport a = open("jfr-a");
            DataTransport b = open("jfr-b", TransportConfig.builder(RegionSpec.allocate(8, BLOCK))
                    .notificationQueueCapacity(1));
            byte[] key = new byte[32];
            DataTransport keyed = open("jfr-keyed", TransportConfig.builder(RegionSpec.allocate(8, BLOCK))
                    .keyRing(DeploymentKeyRing.of("k", key)));
            a.addPeer("b", b.localDescriptor());
            a.addPeer("keyed", keyed.localDescriptor());
            a.writeBlocks("b", new int[] {0}, new int[] {0}, bytes("w"));
            // nothing is ordered across a transfer's notification and a later message: the WRITE's
            // is let in first, so that it is the one the queue of one holds
            awaitArrivals(b, 1);
            a.sendNotification("b", bytes("m1"));
            a.sendNotification("b", bytes("m2"));
            a.sendNotification("keyed", bytes("unsigned"));
            awaitArrivals(b, 3);
            opened.forEach(DataTransport::close);
            recording.stop();
            recording.dump(file);
        }
        java.util.Map<String, List<jdk.jfr.consumer.RecordedEvent>> byName = jdk.jfr.consumer.RecordingFile
                .readAllEvents(file).stream().filter(e -> e.getEventType().getName().startsWith("blockxfer.Notif"))
                .collect(java.util.stream.Collectors.groupingBy(e -> e.getEventType().getName()));
        assertEquals(4, byName.get("blockxfer.NotificationSent").size(), byName.keySet().toString());
        jdk.jfr.consumer.RecordedEvent received = byName.get("blockxfer.NotificationReceived").get(0);
        assertEquals("WRITE", received.getString("kind"));
        assertEquals("jfr-a", received.getString("peer"), "an unregistered sender, by its agent name");
        jdk.jfr.consumer.RecordedEvent refused = byName.get("blockxfer.NotificationRefused").get(0);
        assertEquals("UNSIGNED", refused.getString("reason"));
        assertEquals("jfr-a", refused.getString("sender"));
        long dropped = byName.get("blockxfer.NotificationsDropped").stream()
                .filter(e -> !e.getBoolean("atClose")).mapToLong(e -> e.getLong("count")).sum();
        assertEquals(2, dropped, "the two messages that found a queue of one full");
    }

    /** Waits up to 5 s until {@code t} has received or dropped {@code n} notifications in all. */
    private static void awaitArrivals(DataTransport t, long n) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (t.notificationStats().received() + t.notificationStats().dropped() < n && System.nanoTime() < end) {
            Thread.sleep(5);
        }
    }

    /** Heap in use after collections, threads, and open file descriptors of this JVM. */
    private static long[] footprint() throws Exception {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
        Runtime rt = Runtime.getRuntime();
        long fds;
        try (var s = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/fd"))) {
            fds = s.count();
        }
        return new long[] {rt.totalMemory() - rt.freeMemory(), Thread.activeCount(), fds};
    }

    @Test
    void twoMillionNotificationsLeaveHeapThreadsAndDescriptorsWhereTheyWere() throws Exception {
        DataTransport a = open("flood-a");
        DataTransport b = open("flood-b", TransportConfig.builder(RegionSpec.allocate(8, BLOCK))
                .notificationQueueCapacity(10_000));
        a.addPeer("b", b.localDescriptor());
        byte[] payload = new byte[64];
        for (int i = 0; i < 100_000; i++) {
            a.sendNotification("b", payload);
        }
        b.pollNotifications(n -> { });
        long[] before = footprint();
        // half of them taken as they come, half left to a full queue that drops and counts
        for (int i = 0; i < 1_000_000; i++) {
            a.sendNotification("b", payload);
            if ((i & 1023) == 0) {
                b.pollNotifications(n -> { });
            }
        }
        b.pollNotifications(n -> { });
        for (int i = 0; i < 1_000_000; i++) {
            a.sendNotification("b", payload);
        }
        long[] after = footprint();
        NotificationStats s = b.notificationStats();
        assertEquals(2_100_000, s.received() + s.dropped(), "every notification was queued or counted: " + s);
        assertEquals(10_000, s.queued(), "the full queue holds its capacity");
        assertTrue(after[0] - before[0] < 32L << 20, "heap grew by " + (after[0] - before[0]) / 1024 + " KiB");
        // no growth: threads that earlier test classes of this reused JVM left may end meanwhile, and
        // the JVM may start one of its own (a common-pool worker); a thread per notification is thousands
        assertTrue(after[1] <= before[1] + 2, "threads: " + before[1] + " -> " + after[1]);
        assertTrue(after[2] <= before[2] + 2, "file descriptors: " + before[2] + " -> " + after[2]);
    }
}
