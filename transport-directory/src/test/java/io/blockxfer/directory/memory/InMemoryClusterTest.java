package io.blockxfer.directory.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryScope;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.PublicationListener;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What is particular to the in-memory cluster: its clocks, its raw writes and its hooks. The
 * directory contract itself is checked by the conformance kit's directory suite, which runs against
 * this cluster in the kit's own tests.
 */
class InMemoryClusterTest {

    @Test
    void aManualClockExpiresAnAbandonedLeaseExactlyAtItsTtl() {
        try (InMemoryCluster cluster = InMemoryCluster.withManualClock()) {
            Directory a = cluster.connect("/d/");
            a.publish("m", new byte[] {1}, Duration.ofSeconds(3), PublicationListener.NONE);
            cluster.advance(Duration.ofHours(1));
            assertTrue(cluster.get("/d/m").isPresent(), "a kept lease never expires");
            cluster.crash(a);
            cluster.advance(Duration.ofMillis(2999));
            assertTrue(cluster.get("/d/m").isPresent());
            cluster.advance(Duration.ofMillis(1));
            assertFalse(cluster.get("/d/m").isPresent(), "expired at its TTL after the crash");
        }
    }

    @Test
    void aRealTimeClusterExpiresLeasesByItselfAndCannotBeAdvanced() throws Exception {
        try (InMemoryCluster cluster = InMemoryCluster.create()) {
            Directory a = cluster.connect("/d/");
            CountDownLatch lost = new CountDownLatch(1);
            Publication p = a.publish("m", new byte[] {1}, Duration.ofSeconds(2), (pub, reason) -> lost.countDown());
            cluster.cutOff(a);
            assertTrue(lost.await(10, TimeUnit.SECONDS), "the lease expires two seconds after the cut");
            assertTrue(p.isLost());
            assertFalse(cluster.get("/d/m").isPresent());
            assertThrows(IllegalStateException.class, () -> cluster.advance(Duration.ofSeconds(1)));
        }
    }

    @Test
    void aGroupedPublicationsTwoKeysAreWrittenAndDeletedAtOneRevisionAsEtcdTransactionsAre() {
        try (InMemoryCluster cluster = InMemoryCluster.withManualClock()) {
            Directory a = cluster.connect("/d/");
            long before = cluster.revision();
            Publication p = a.publish("m", "g", lease -> new byte[] {7}, Duration.ofSeconds(3),
                    PublicationListener.NONE);
            String groupKey = DirectoryScope.groupKey("/d/", "g", "m");
            assertEquals(before + 1, p.revision(), "one write for both keys");
            assertEquals(p.lease(), cluster.leaseOf("/d/m"));
            assertEquals(p.lease(), cluster.leaseOf(groupKey));
            cluster.delete(groupKey);
            long restored = p.restore();
            assertEquals(p.lease(), cluster.leaseOf(groupKey), "restore writes the group key back");
            assertEquals(restored, cluster.revision());
            assertTrue(cluster.loseLease("/d/m"));
            assertEquals(restored + 1, cluster.revision(), "the lease's end deletes both keys at one revision");
            assertFalse(cluster.get("/d/m").isPresent());
            assertFalse(cluster.get(groupKey).isPresent());
            assertThrows(IllegalArgumentException.class, () -> a.publish("n", "bad/group", lease -> new byte[1],
                    Duration.ofSeconds(3), PublicationListener.NONE));
        }
    }

    @Test
    void rawWritesStoreAnyBytesUpToEtcdsRequestLimit() {
        try (InMemoryCluster cluster = InMemoryCluster.withManualClock()) {
            long before = cluster.revision();
            cluster.put("/anything/at/all", new byte[1 << 20]);
            assertEquals(1 << 20, cluster.get("/anything/at/all").orElseThrow().length);
            assertEquals(before + 1, cluster.revision());
            var e = assertThrows(IllegalArgumentException.class,
                    () -> cluster.put("/k", new byte[InMemoryCluster.MAX_RAW_VALUE_BYTES + 1]));
            assertTrue(e.getMessage().contains("too large"), e.getMessage());
            assertTrue(cluster.delete("/anything/at/all"));
            assertFalse(cluster.delete("/anything/at/all"));
        }
    }

    @Test
    void hooksRefuseClientsOfOtherClustersAndAClosedClusterRefusesCalls() {
        InMemoryCluster one = InMemoryCluster.withManualClock();
        try (InMemoryCluster two = InMemoryCluster.withManualClock()) {
            Directory foreign = two.connect("/d/");
            assertThrows(IllegalArgumentException.class, () -> one.cutOff(foreign));
            assertThrows(IllegalArgumentException.class, () -> one.connect("no-slash"));
            Directory mine = one.connect("/d/");
            one.close();
            one.close();
            assertThrows(IllegalStateException.class, () -> one.connect("/d/"));
            assertThrows(IllegalStateException.class,
                    () -> mine.publish("m", new byte[1], Duration.ofSeconds(2), PublicationListener.NONE));
        }
    }
}
