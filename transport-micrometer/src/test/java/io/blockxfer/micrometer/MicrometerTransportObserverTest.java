package io.blockxfer.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.loopback.LoopbackFaults;
import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MicrometerTransportObserverTest {

    @Test
    void loopbackTransfersShowUpAsMeters() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        TransportConfig base = TransportConfig.builder(RegionSpec.allocate(8, 1024)).transport("loopback").build();
        try (DataTransport target = Transports.open(base);
                DataTransport initiator = Transports.open(base.toBuilder().agentName("metered")
                        .observer(new MicrometerTransportObserver(registry)).build())) {
            initiator.addPeer("t", target.localDescriptor());
            Set<Long> ids = new HashSet<>();
            for (int i = 0; i < 10; i++) {
                ids.add(initiator.writeBlocks("t", new int[] {i % 8, (i + 1) % 8}, new int[] {0, 1}));
            }
            ids.add(initiator.readBlocks("t", new int[] {3}, new int[] {4}));
            initiator.feature(LoopbackFaults.class).orElseThrow().failNextSubmits(1);
            ids.add(initiator.writeBlocks("t", new int[] {0}, new int[] {0}));
            target.feature(LoopbackFaults.class).orElseThrow().stall(true);
            long stalled = initiator.writeBlocks("t", new int[] {5}, new int[] {5});
            initiator.cancel(new long[] {stalled}, CancelMode.IMMEDIATE);
            long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (!ids.isEmpty() && System.nanoTime() < end) {
                PollResult r = initiator.poll("t");
                for (long id : r.done()) {
                    ids.remove(id);
                }
                for (long id : r.failed()) {
                    ids.remove(id);
                }
            }
            assertTrue(ids.isEmpty(), "unreported: " + ids);
            target.feature(LoopbackFaults.class).orElseThrow().stall(false);
        }
        String[] tags = {"backend", "loopback", "agent", "metered", "peer", "t"};
        assertEquals(10, registry.get("blockxfer.transfers").tags(tags).tags("op", "write", "outcome", "done")
                .counter().count());
        assertEquals(1, registry.get("blockxfer.transfers").tags(tags).tags("op", "write", "outcome", "failed")
                .counter().count());
        assertEquals(1, registry.get("blockxfer.transfers").tags(tags).tags("op", "write", "outcome", "cancelled")
                .counter().count());
        assertEquals(1, registry.get("blockxfer.transfers").tags(tags).tags("op", "read", "outcome", "done")
                .counter().count());
        assertEquals(10 * 2 * 1024, registry.get("blockxfer.bytes").tags(tags).tags("op", "write").counter().count());
        assertEquals(10, registry.get("blockxfer.transfer.latency").tags(tags).tags("op", "write", "outcome", "done")
                .timer().count());
        assertEquals(0, registry.get("blockxfer.inflight").tags(tags).gauge().value());
        assertEquals(1, registry.get("blockxfer.peer.registration").tags(tags).tags("outcome", "published")
                .timer().count());
        assertEquals(1, registry.get("blockxfer.peer.failures").tags(tags).counter().count());
    }

    @Test
    void notificationsSentReceivedRefusedAndDroppedShowUpAsMeters() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        TransportConfig base = TransportConfig.builder(RegionSpec.allocate(8, 1024)).transport("loopback").build();
        byte[] key = new byte[32];
        key[3] = 9;
        io.blockxfer.transport.DeploymentKeyRing ring = io.blockxfer.transport.DeploymentKeyRing.of("k", key);
        try (DataTransport sender = Transports.open(base.toBuilder().agentName("sender").keyRing(ring)
                .observer(new MicrometerTransportObserver(registry)).build());
                DataTransport receiver = Transports.open(base.toBuilder().agentName("receiver").keyRing(ring)
                        .notificationQueueCapacity(2).observer(new MicrometerTransportObserver(registry)).build());
                DataTransport stranger = Transports.open(base.toBuilder().agentName("stranger").build())) {
            sender.addPeer("r", receiver.localDescriptor());
            stranger.addPeer("r", receiver.localDescriptor());
            long id = sender.writeBlocks("r", new int[] {0}, new int[] {0}, new byte[] {1});
            // the write's notification first (it is received before its transfer is reported done),
            // then the messages, the second of which finds the queue of two full
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (!java.util.Arrays.stream(sender.poll("r").done()).anyMatch(d -> d == id)
                    && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            sender.sendNotification("r", new byte[] {2});
            sender.sendNotification("r", new byte[] {3});
            stranger.sendNotification("r", new byte[] {4});
            long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (receiver.notificationStats().received() + receiver.notificationStats().dropped() < 3
                    && System.nanoTime() < end) {
                sender.poll("r");
                Thread.sleep(5);
            }
            assertTrue(id >= 0);
        }
        assertEquals(1, registry.get("blockxfer.notifications.sent").tags("agent", "sender", "peer", "r", "kind",
                "write").counter().count());
        assertEquals(2, registry.get("blockxfer.notifications.sent").tags("agent", "sender", "peer", "r", "kind",
                "message").counter().count());
        assertEquals(1, registry.get("blockxfer.notifications.received").tags("agent", "receiver", "kind", "write")
                .counter().count());
        assertEquals(1, registry.get("blockxfer.notifications.received").tags("agent", "receiver", "kind", "message")
                .counter().count());
        assertEquals(1, registry.get("blockxfer.notifications.dropped").tags("agent", "receiver").counter().count(),
                "the third message found a queue of two full");
        assertEquals(1, registry.get("blockxfer.notifications.refused").tags("agent", "receiver", "reason",
                "unsigned").counter().count(), "the stranger's unsigned message");
    }
}
