package io.blockxfer.directory.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.directory.DirectoryEvent;
import io.blockxfer.directory.DirectoryListener;
import io.blockxfer.directory.DirectorySnapshot;
import io.blockxfer.directory.DirectoryWatch;
import io.blockxfer.directory.Membership;
import io.blockxfer.directory.MembershipListener;
import io.blockxfer.tck.process.EtcdCluster;
import io.blockxfer.tck.process.EtcdGateway;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One etcd watch stream per process, against a real etcd, counted by etcd itself
 * ({@code etcd_debugging_mvcc_watch_stream_total}, {@code etcd_debugging_mvcc_watcher_total} on its
 * {@code /metrics}): memberships sharing one directory, their own keys and every member they
 * resolved, and a directory of another prefix on the same connection, are watchers on one stream;
 * events reach each of them; when the connection breaks, each membership hears of it once, and one
 * stream carries them all again afterwards.
 */
class EtcdWatchStreamTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int MEMBERS = 6;
    private static final int PARTNERS = 3;

    private static EtcdCluster cluster;
    private final List<AutoCloseable> open = new ArrayList<>();
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

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        if (deployment != null) {
            deployment.close();
        }
    }

    private <T extends AutoCloseable> T keep(T c) {
        open.add(c);
        return c;
    }

    /** Lines of a membership's calls: "removed m3", "disconnected ...", "reconnected". */
    private static final class Heard implements MembershipListener {
        final List<String> lines = new CopyOnWriteArrayList<>();

        @Override public void memberRemoved(String id, long epoch) { lines.add("removed " + id); }
        @Override public void disconnected(String reason) { lines.add("disconnected " + reason); }
        @Override public void reconnected(long revision, boolean resync) { lines.add("reconnected"); }

        long count(String prefix) {
            return lines.stream().filter(l -> l.startsWith(prefix)).count();
        }
    }

    private static double watchStreams() {
        return EtcdGateway.sum(cluster.metrics(0), "etcd_debugging_mvcc_watch_stream_total");
    }

    private static double watchers() {
        return EtcdGateway.sum(cluster.metrics(0), "etcd_debugging_mvcc_watcher_total");
    }

    private static void await(BooleanSupplier condition, Supplier<String> what) throws InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError(what.get() + " within " + WAIT.toSeconds() + " s");
            }
            Thread.sleep(20);
        }
    }

    @Test
    void everyWatchOfAProcessSharesOneEtcdWatchStream() throws Exception {
        deployment = EtcdDeployment.on(cluster);
        assertEquals(0, watchStreams(), "no watch stream before the process watches");
        EtcdDirectory directory = keep(deployment.connect(Duration.ofSeconds(5)));
        List<Membership> members = new ArrayList<>();
        List<Heard> heard = new ArrayList<>();
        for (int i = 0; i < MEMBERS; i++) {
            DataTransport t = keep(Transports.open(TransportConfig.builder(RegionSpec.allocate(1, 64))
                    .transport("loopback").agentName("m" + i).build()));
            Heard h = new Heard();
            heard.add(h);
            members.add(keep(Membership.builder(t, directory).followNone().flapInterval(Duration.ZERO)
                    .ttl(Duration.ofSeconds(10)).listener(h).build()));
        }
        for (int i = 0; i < MEMBERS; i++) {
            for (int k = 1; k <= PARTNERS; k++) {
                members.get(i).resolve("m" + (i + k) % MEMBERS).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
        }
        int expected = MEMBERS + MEMBERS * PARTNERS; // each one's own key, and each member it resolved
        await(() -> watchers() == expected, () -> "etcd did not count " + expected + " watchers (it counts "
                + watchers() + ")");
        assertEquals(1, watchStreams(), expected + " watches of one process on one stream");

        EtcdDirectory other = keep(directory.forPrefix(deployment.prefix() + "other/"));
        DirectoryWatch otherWatch = keep(other.watch(new DirectoryListener() {
            @Override public void snapshot(DirectorySnapshot snapshot) { }
            @Override public void changed(DirectoryEvent event) { }
        }));
        await(() -> watchers() == expected + 1, () -> "the other prefix's watch was not counted");
        assertEquals(1, watchStreams(), "a directory of another prefix on the same connection shares its stream");
        assertTrue(otherWatch.revision() >= 0);

        // events reach every watcher: the goodbye of the last member reaches the three that resolved it
        members.get(MEMBERS - 1).close();
        for (int i = MEMBERS - 1 - PARTNERS; i < MEMBERS - 1; i++) {
            Heard h = heard.get(i);
            int who = i;
            await(() -> h.count("removed m" + (MEMBERS - 1)) == 1, () -> "m" + who + " did not remove m"
                    + (MEMBERS - 1) + ": " + h.lines);
        }

        // the connection breaks: each membership hears of it once, and is back once, on one new stream
        TcpProxy proxy = deployment.proxiesOf(directory).get(0);
        proxy.cut();
        for (int i = 0; i < MEMBERS - 1; i++) {
            Heard h = heard.get(i);
            await(() -> h.count("disconnected") == 1, () -> "a membership did not hear of the break: " + h.lines);
        }
        proxy.restore();
        for (int i = 0; i < MEMBERS - 1; i++) {
            Heard h = heard.get(i);
            await(() -> h.count("reconnected") == 1, () -> "a membership did not hear it is back: " + h.lines);
            assertEquals(1, h.count("disconnected"), "one disconnect for all of a membership's watches: " + h.lines);
        }
        int after = expected - 1 - 2 * PARTNERS; // m5's own key, its resolutions and the resolutions of it are gone
        await(() -> watchers() == after + 1, () -> "etcd did not count " + (after + 1) + " watchers after the break"
                + " (it counts " + watchers() + ")");
        assertEquals(1, watchStreams(), "one stream again after the break");
        Map<String, Long> held = members.get(0).members();
        assertEquals(PARTNERS, held.size(), "m0 still holds the members it resolved: " + held);
        members.get(1).close(); // followed across the break: its resolvers (m0 among them) remove it
        await(() -> heard.get(0).count("removed m1") == 1, () -> "m0 did not remove m1 after the break: "
                + heard.get(0).lines);
    }
}
