package io.blockxfer.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.NotificationStats;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A long stream of notifications through UCX's active messages costs no memory, thread or file
 * descriptor that stays: the sender's pooled message buffers and UCX's requests are given back,
 * and the receiver's queue is bounded. The process's resident memory is measured, so native
 * memory counts too.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class UcxNotificationFootprintTest {

    private static long[] footprint() throws Exception {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
        long rssKib = Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("VmRSS:"))
                .map(l -> Long.parseLong(l.replaceAll("[^0-9]", ""))).findFirst().orElse(-1L);
        long fds;
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            fds = s.count();
        }
        return new long[] {rssKib, Thread.activeCount(), fds};
    }

    /**
     * Sends {@code count} messages and notified WRITEs (at most 64 WRITEs in flight, as a caller
     * with a window keeps them), taking what arrives now and then.
     */
    private static void stream(DataTransport a, DataTransport b, int count) throws Exception {
        byte[] payload = new byte[64];
        int[] inFlight = {0};
        for (int i = 0; i < count; i++) {
            if ((i & 7) == 0) {
                while (inFlight[0] >= 64) {
                    a.poll("b", (id, ok) -> inFlight[0]--, 10, TimeUnit.MILLISECONDS);
                }
                a.writeBlocks("b", new int[] {i & 7}, new int[] {i & 7}, payload);
                inFlight[0]++;
            } else {
                a.sendNotification("b", payload);
            }
            if ((i & 255) == 0) {
                a.poll("b", (id, ok) -> inFlight[0]--);
                b.pollNotifications(n -> { });
            }
        }
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        NotificationStats s = b.notificationStats();
        while (s.received() + s.dropped() < a.notificationStats().sent() && System.nanoTime() < end) {
            a.poll("b", (id, ok) -> inFlight[0]--);
            b.pollNotifications(n -> { }, 10, TimeUnit.MILLISECONDS);
            s = b.notificationStats();
        }
    }

    @Test
    void aMillionNotificationsLeaveResidentMemoryThreadsAndDescriptorsWhereTheyWere() throws Exception {
        UcxTestSupport.requireUcx();
        TransportConfig config = TransportConfig.builder(RegionSpec.allocate(8, 4096)).transport("ucx")
                .notificationQueueCapacity(4096).build();
        try (DataTransport a = Transports.open(config.toBuilder().agentName("ucx-flood-a").build());
                DataTransport b = Transports.open(config.toBuilder().agentName("ucx-flood-b").build())) {
            a.addPeer("b", b.localDescriptor());
            stream(a, b, 200_000);
            long[] before = footprint();
            stream(a, b, 1_000_000);
            long[] after = footprint();
            NotificationStats s = b.notificationStats();
            assertEquals(a.notificationStats().sent(), s.received() + s.dropped(),
                    "every notification sent arrived, queued or counted as dropped: " + s);
            assertTrue(after[0] - before[0] < 64 * 1024, "resident memory grew by " + (after[0] - before[0]) + " KiB");
            assertEquals(before[1], after[1], "threads");
            assertTrue(after[2] <= before[2] + 2, "file descriptors: " + before[2] + " -> " + after[2]);
        }
    }
}
