package io.blockxfer.nixl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.Notification;
import io.blockxfer.transport.NotificationStats;
import io.blockxfer.transport.ProgressMode;
import io.blockxfer.transport.TransportConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Notifications on the NIXL backend, initiator and target in this JVM, as a prefill and a decode
 * worker use them: a transfer's message reaches its target after every byte of it, once, named by
 * the peer id the target gave the sender, in every progress mode; READs and messages without a
 * transfer; a key ring; a target nobody polls (its queue bounded, NIXL's own list drained, no
 * growth of threads; {@link NixlNotificationFloodTest} checks memory); an initiator that never polls again (its transfer's message still
 * goes out, because NIXL sends it from a status check the engine's notification thread makes);
 * close. {@link NixlNotificationsAcrossProcessesTest} does the same across processes, and failed
 * transfers; the kit's N rules check the contract on every backend.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class NixlTargetNotificationsTest {

    private static final int BLOCKS = 64;
    private static final long BLOCK = 64 * 1024;
    private final List<DataTransport> opened = new ArrayList<>();

    @BeforeEach
    void check() {
        NixlTests.assumeNixl();
    }

    @AfterEach
    void closeAll() {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
    }

    private DataTransport open(TransportConfig.Builder b) {
        DataTransport t = NixlTests.open(b.build());
        opened.add(t);
        return t;
    }

    private DataTransport open(String name) {
        return open(NixlTests.config(name, BLOCKS, BLOCK));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** Takes notifications from {@code t} until {@code count} arrived or {@code limit} passed; each goes to {@code onEach}. */
    private static List<Notification> await(DataTransport t, int count, Duration limit, Consumer<Notification> onEach)
            throws InterruptedException {
        List<Notification> got = new ArrayList<>();
        long end = System.nanoTime() + limit.toNanos();
        while (got.size() < count && System.nanoTime() - end < 0) {
            t.pollNotifications(n -> {
                onEach.accept(n);
                got.add(n);
            }, 50, TimeUnit.MILLISECONDS);
        }
        return got;
    }

    private static List<Notification> await(DataTransport t, int count) throws InterruptedException {
        return await(t, count, Duration.ofSeconds(20), n -> { });
    }

    private static int[] run(int from, int count) {
        int[] r = new int[count];
        for (int i = 0; i < count; i++) {
            r[i] = from + i;
        }
        return r;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"POLLING_THREAD", "BACKEND_THREAD", "NO_NIXL_PROGRESS_THREAD"})
    void aWritesMessageArrivesAfterEveryByteOfItOnceNamedByThePeerIdOfTheSender(String mode)
            throws InterruptedException {
        TransportConfig.Builder prefillConfig = NixlTests.config("prefill-" + mode.toLowerCase(Locale.ROOT), BLOCKS, BLOCK);
        TransportConfig.Builder decodeConfig = NixlTests.config("decode-" + mode.toLowerCase(Locale.ROOT), BLOCKS, BLOCK);
        for (TransportConfig.Builder b : List.of(prefillConfig, decodeConfig)) {
            if (mode.equals("NO_NIXL_PROGRESS_THREAD")) {
                b.option(NixlOptions.PROGRESS_THREAD, "false");
            } else {
                b.progressMode(ProgressMode.valueOf(mode));
            }
        }
        DataTransport prefill = open(prefillConfig);
        DataTransport decode = open(decodeConfig);
        prefill.addPeer("d", decode.localDescriptor());
        decode.addPeer("p", prefill.localDescriptor());
        int transfers = 16;
        int perTransfer = 4;
        Map<Long, Integer> firstBlock = new HashMap<>();
        for (int k = 0; k < transfers; k++) {
            int[] local = run(k * perTransfer, perTransfer);
            for (int b : local) {
                NixlTests.fill(prefill.region().block(b), k + 1, b);
            }
            // remote block i of transfer k lands on block BLOCKS - 1 - (k * perTransfer + i)
            int[] remote = new int[perTransfer];
            for (int i = 0; i < perTransfer; i++) {
                remote[i] = BLOCKS - 1 - (k * perTransfer + i);
            }
            long id = prefill.writeBlocks("d", local, remote, bytes("req-" + k));
            assertTrue(id >= 0);
            firstBlock.put(id, k);
        }
        Map<Long, Long> badByte = new HashMap<>();
        List<Notification> got = await(decode, transfers, Duration.ofSeconds(20), n -> {
            int k = firstBlock.getOrDefault(n.transferId(), -1);
            long bad = k < 0 ? -2 : -1;
            for (int i = 0; k >= 0 && i < perTransfer && bad == -1; i++) {
                bad = NixlTests.mismatch(decode.region().block(BLOCKS - 1 - (k * perTransfer + i)), k + 1,
                        k * perTransfer + i);
            }
            badByte.put(n.transferId(), bad);
        });
        Map<Long, Boolean> outcomes = NixlTests.await(prefill, "d", firstBlock.keySet(), Duration.ofSeconds(20));
        assertEquals(transfers, outcomes.values().stream().filter(ok -> ok).count(), "every WRITE done: " + outcomes);
        assertEquals(transfers, got.size(), "one message per WRITE: " + got);
        Set<Long> ids = new HashSet<>();
        for (Notification n : got) {
            assertTrue(ids.add(n.transferId()), "transfer " + n.transferId() + "'s message came twice");
            assertEquals(-1L, badByte.get(n.transferId()), "when transfer " + n.transferId() + "'s message was"
                    + " delivered its bytes were not all there (first bad offset, -2: an unknown transfer)");
            assertEquals("p", n.sender(), "named by the peer id the target registered the sender under");
            assertEquals(prefill.agentName(), n.senderAgent());
            assertEquals(Notification.Kind.WRITE, n.kind());
            assertTrue(n.payloadEquals(bytes("req-" + firstBlock.get(n.transferId()))), n.toString());
            assertFalse(n.authenticated(), "no key ring");
        }
        assertEquals(firstBlock.keySet(), ids);
        assertEquals(0, decode.pollNotifications(n -> { }, 300, TimeUnit.MILLISECONDS), "nothing more, ever");
        assertEquals(transfers, prefill.notificationStats().sent());
        assertEquals(transfers, decode.notificationStats().delivered());
    }

    @Test
    void aReadsMessageReachesTheOwnerOfTheBlocksAndMessagesWithoutATransferGoBothWays() throws Exception {
        DataTransport owner = open("owner");
        DataTransport reader = open("reader");
        reader.addPeer("owner", owner.localDescriptor());
        NixlTests.fill(owner.region().block(9), 5, 9);
        long read = reader.readBlocks("owner", new int[] {2}, new int[] {9}, bytes("done reading"));
        List<Notification> got = await(owner, 1);
        assertEquals(Map.of(read, true), NixlTests.await(reader, "owner", Set.of(read), Duration.ofSeconds(20)));
        assertEquals(-1, NixlTests.mismatch(reader.region().block(2), 5, 9), "the READ moved the bytes");
        assertEquals(1, got.size());
        assertEquals(Notification.Kind.READ, got.get(0).kind());
        assertEquals(read, got.get(0).transferId());
        assertEquals("reader", got.get(0).sender(), "an unregistered sender is named by its agent name");

        assertTrue(reader.sendNotification("owner", bytes("lease end")));
        List<Notification> message = await(owner, 1);
        assertEquals(Notification.Kind.MESSAGE, message.get(0).kind());
        assertEquals(-1, message.get(0).transferId());
        assertTrue(message.get(0).payloadEquals(bytes("lease end")));

        owner.addPeer("r", reader.localDescriptor());
        assertTrue(owner.sendNotification("r", new byte[0]), "an empty message is a message");
        List<Notification> back = await(reader, 1);
        assertEquals("owner", back.get(0).sender());
        assertEquals(0, back.get(0).payloadLength());
        assertFalse(owner.sendNotification("nobody", bytes("x")), "an unknown peer gets nothing");
        assertEquals(0, reader.pollNotifications(n -> { }, 200, TimeUnit.MILLISECONDS));
    }

    @Test
    void withAKeyRingMessagesAreAuthenticatedAndATransportWithoutTheKeyIsRefused() throws Exception {
        byte[] key = new byte[DeploymentKeyRing.MIN_KEY_BYTES];
        new SecureRandom().nextBytes(key);
        DeploymentKeyRing ring = DeploymentKeyRing.of("deploy-1", key);
        DataTransport a = open(NixlTests.config("keyed-a", BLOCKS, BLOCK).keyRing(ring));
        DataTransport b = open(NixlTests.config("keyed-b", BLOCKS, BLOCK).keyRing(ring));
        DataTransport intruder = open("intruder");
        a.addPeer("b", b.localDescriptor());
        b.addPeer("a", a.localDescriptor());
        long write = a.writeBlocks("b", new int[] {0}, new int[] {1}, bytes("landed"));
        assertTrue(a.sendNotification("b", bytes("hello")));
        List<Notification> got = await(b, 2);
        assertEquals(2, got.size());
        for (Notification n : got) {
            assertTrue(n.authenticated(), "a MAC under the ring vouched for " + n);
            assertEquals("a", n.sender());
        }
        assertEquals(write, got.stream().filter(n -> n.kind() == Notification.Kind.WRITE).findFirst().orElseThrow()
                .transferId());

        // the key ring refuses the intruder's unsigned descriptor, but NIXL connects anyone holding metadata:
        // its frames arrive, unsigned, and are refused and counted
        intruder.addPeer("b", b.localDescriptor().unsigned());
        long refusedBefore = b.notificationStats().refused();
        long forged = intruder.writeBlocks("b", new int[] {0}, new int[] {2}, bytes("landed too"));
        assertTrue(intruder.sendNotification("b", bytes("landed three")));
        assertEquals(Map.of(forged, true), NixlTests.await(intruder, "b", Set.of(forged), Duration.ofSeconds(20)));
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (b.notificationStats().refused() < refusedBefore + 2 && System.nanoTime() < end) {
            assertEquals(0, b.pollNotifications(n -> fail("delivered without the key: " + n), 20,
                    TimeUnit.MILLISECONDS));
        }
        assertEquals(refusedBefore + 2, b.notificationStats().refused(), "both refused as unsigned");
        assertEquals(0, b.pollNotifications(n -> fail("delivered without the key: " + n), 200,
                TimeUnit.MILLISECONDS));
    }

    @Test
    void aTargetNobodyPollsTakesEveryMessageOutOfNixlKeepsItsQueueBoundedAndCountsTheDrops()
            throws Exception {
        int capacity = 64;
        DataTransport target = open(NixlTests.config("quiet-target", BLOCKS, BLOCK)
                .notificationQueueCapacity(capacity));
        DataTransport sender = open("chatty-sender");
        sender.addPeer("t", target.localDescriptor());
        byte[] payload = new byte[Notification.MAX_PAYLOAD_BYTES];
        int batch = 2_000;
        int warm = 4_000;
        int total = 20_000;
        long sent = 0;
        long threadsWarm = 0;
        while (sent < total) {
            for (int i = 0; i < batch; i++) {
                payload[0] = (byte) i;
                assertTrue(sender.sendNotification("t", payload));
            }
            sent += batch;
            // nobody polls the target: only its engine's notification thread can take them from NIXL
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (arrived(target) < sent) {
                if (System.nanoTime() > deadline) {
                    fail("the target took " + arrived(target) + " of " + sent + " messages from NIXL while nobody"
                            + " polled: " + target.notificationStats());
                }
                LockSupport.parkNanos(200_000);
            }
            if (sent == warm) {
                threadsWarm = procStatus("Threads:");
            }
        }
        NotificationStats s = target.notificationStats();
        assertEquals(capacity, s.queued(), "the queue holds its capacity: " + s);
        assertEquals(sent - capacity, s.dropped(), "the rest were dropped and counted: " + s);
        assertEquals(0, s.delivered());
        assertEquals(threadsWarm, procStatus("Threads:"), "no thread started for the stream");
        List<Notification> queued = await(target, capacity);
        assertEquals(capacity, queued.size());
        assertTrue(sender.sendNotification("t", bytes("after the flood")));
        Notification next = await(target, 1).get(0);
        assertTrue(next.payloadEquals(bytes("after the flood")));
        assertEquals(sent - capacity, next.droppedBefore(), "the sender's next message says how many were dropped");
    }

    private static long arrived(DataTransport t) {
        NotificationStats s = t.notificationStats();
        return s.received() + s.dropped();
    }

    /** A number field of /proc/self/status. */
    private static long procStatus(String field) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith(field)) {
                return Long.parseLong(line.substring(field.length()).trim().split("\\s+", -1)[0]);
            }
        }
        throw new IOException("no " + field + " in /proc/self/status");
    }

    @Test
    void anInitiatorThatNeverPollsAgainStillSendsItsTransfersMessage() throws Exception {
        // over TCP a WRITE of 2 MiB is still in flight when its post returns, so NIXL sends its message
        // only from a status check: the initiator's engine makes it when the caller does not
        Map<String, String> tcp = Map.of("nixl.ucx.engine_config", "TLS=tcp");
        DataTransport initiator = open(NixlTests.config("silent-initiator", BLOCKS, BLOCK).options(tcp));
        DataTransport target = open(NixlTests.config("waiting-target", BLOCKS, BLOCK).options(tcp));
        initiator.addPeer("t", target.localDescriptor());
        long warm = initiator.writeBlocks("t", new int[] {0}, new int[] {0});
        assertEquals(Map.of(warm, true), NixlTests.await(initiator, "t", Set.of(warm), Duration.ofSeconds(20)));
        for (int b = 0; b < 32; b++) {
            NixlTests.fill(initiator.region().block(b), 7, b);
        }
        long id = initiator.writeBlocks("t", run(0, 32), run(32, 32), bytes("landed"));
        long[] bad = {-2};
        List<Notification> got = await(target, 1, Duration.ofSeconds(10), n -> {
            bad[0] = -1;
            for (int i = 0; i < 32 && bad[0] == -1; i++) {
                bad[0] = NixlTests.mismatch(target.region().block(32 + i), 7, i);
            }
        });
        assertEquals(1, got.size(), "the message of a WRITE nobody polled reached the target");
        assertEquals(id, got.get(0).transferId());
        assertEquals(-1, bad[0], "its bytes were all there");
        assertEquals(Map.of(id, true), NixlTests.await(initiator, "t", Set.of(id), Duration.ofSeconds(20)),
                "and the initiator still hears of it once");
    }

    @Test
    void closeDiscardsWhatIsQueuedEndsAWaitAndStopsTheNotificationThread() throws Exception {
        DataTransport sender = open("closing-sender");
        DataTransport target = NixlTests.open(NixlTests.config("closing-target", BLOCKS, BLOCK).build());
        DataTransport waited = NixlTests.open(NixlTests.config("waited-target", BLOCKS, BLOCK).build());
        try {
            sender.addPeer("t", target.localDescriptor());
            for (int i = 0; i < 3; i++) {
                assertTrue(sender.sendNotification("t", bytes("m" + i)));
            }
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (target.notificationStats().queued() < 3 && System.nanoTime() < end) {
                LockSupport.parkNanos(1_000_000);
            }
            assertEquals(3, target.notificationStats().queued(), "queued by the notification thread, nobody polled");
            assertTrue(notificationThreads().contains("blockxfer-nixl-notifications-closing-target"));
            target.close();
            NotificationStats s = target.notificationStats();
            assertEquals(3, s.discarded(), "what was queued at close is discarded and counted: " + s);
            assertEquals(0, s.queued());
            assertFalse(notificationThreads().contains("blockxfer-nixl-notifications-closing-target"),
                    "the notification thread ended with its transport: " + notificationThreads());
            assertFalse(sender.sendNotification("t", bytes("too late")), "a closed target of this JVM gets nothing");

            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread waiter = Thread.ofVirtual().start(() -> {
                try {
                    waited.pollNotifications(n -> { }, 30, TimeUnit.SECONDS);
                    thrown.set(new AssertionError("the wait returned"));
                } catch (Throwable t) {
                    thrown.set(t);
                }
            });
            waiter.join(300);
            assertTrue(waiter.isAlive(), "waiting for a message");
            waited.close();
            waiter.join(10_000);
            assertInstanceOf(IllegalStateException.class, thrown.get(), "close ends the wait");
        } finally {
            target.close();
            waited.close();
        }
    }

    private static Set<String> notificationThreads() {
        Set<String> names = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("blockxfer-nixl-notifications-")) {
                names.add(t.getName());
            }
        }
        return names;
    }
}
