package io.blockxfer.directory.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryEvent;
import io.blockxfer.tck.process.ChildJvm;
import io.blockxfer.tck.process.EtcdCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A publisher in a child JVM, SIGKILLed (no goodbye): its entry is deleted within its TTL + 1 s of
 * the kill, as every watcher sees it. The times are printed ({@code lease expiry: ...}) for the
 * README's figures.
 */
class LeaseExpiryTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static EtcdCluster cluster;

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

    @Test
    void aKilledPublishersEntryIsDeletedWithinItsTtlAndOneSecond() {
        measure(2, 1);
    }

    // full tier: five more kills at each of two TTLs (about a minute) for the README's median and
    // range; the fast tier kills one publisher
    @Tag("full")
    @Test
    void expiryTimesOverSeveralKills() {
        measure(2, 5);
        measure(5, 5);
    }

    private static void measure(int ttlSeconds, int runs) {
        List<Long> millis = new ArrayList<>();
        try (EtcdDeployment deployment = EtcdDeployment.on(cluster)) {
            Directory watcherClient = deployment.connect();
            Recorder watcher = new Recorder();
            watcherClient.watch(watcher);
            watcher.awaitSnapshot(WAIT);
            for (int run = 0; run < runs; run++) {
                String member = "killed-" + ttlSeconds + "-" + run;
                String key = deployment.prefix() + member;
                try (ChildJvm child = ChildJvm.builder(PublisherMain.class)
                        .args(cluster.endpoints(), deployment.prefix(), member, Integer.toString(ttlSeconds))
                        .name("publisher-" + member).start()) {
                    String line = child.nextLine(WAIT);
                    assertTrue(line.startsWith("PUBLISHED "), line);
                    watcher.awaitView(v -> v.containsKey(key), WAIT, member + "'s put");
                    // let a renewal or two pass, so the kill lands anywhere in the renewal cycle
                    EtcdCluster.sleep(ttlSeconds * 1000L / 2 + run * 137L);
                    long killed = System.nanoTime();
                    child.kill();
                    watcher.await(r -> r.events().stream().anyMatch(e -> e.type() == DirectoryEvent.Type.DELETE
                            && e.key().equals(key)), WAIT, member + "'s delete");
                    Recorder.Callback delete = watcher.callbacks().stream()
                            .filter(c -> c.event() != null && c.event().type() == DirectoryEvent.Type.DELETE
                                    && c.event().key().equals(key)).findFirst().orElseThrow();
                    long took = (delete.at() - killed) / 1_000_000;
                    millis.add(took);
                    assertTrue(took <= ttlSeconds * 1000L + deployment.expiryGrace().toMillis(),
                            member + " deleted " + took + " ms after the kill; TTL " + ttlSeconds + " s");
                }
            }
            assertEquals(List.of(), watcher.violations());
        }
        List<Long> sorted = millis.stream().sorted().toList();
        System.out.println("lease expiry: TTL " + ttlSeconds + " s, kill to delete (ms): " + millis + ", median "
                + sorted.get(sorted.size() / 2) + ", range " + sorted.getFirst() + "-" + sorted.getLast());
    }
}
