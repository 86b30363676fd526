package io.blockxfer.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.Membership;
import io.blockxfer.directory.MembershipListener;
import io.blockxfer.directory.Refusal;
import io.blockxfer.directory.memory.InMemoryCluster;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A membership on the in-memory directory, metered: members, changes, refusals, reconnects and its own entry. */
class MicrometerMembershipListenerTest {

    private static final String PREFIX = "/kv/metered/";

    private static DataTransport open(String agent) {
        return Transports.open(TransportConfig.builder(RegionSpec.allocate(4, 256)).transport("loopback")
                .agentName(agent).build());
    }

    /** Counts down on a callback, so the test knows the membership got that far. */
    private static final class Latches implements MembershipListener {
        final CountDownLatch added = new CountDownLatch(2);
        final CountDownLatch removed = new CountDownLatch(1);
        final CountDownLatch refused = new CountDownLatch(1);
        final CountDownLatch resumed = new CountDownLatch(1);
        final CountDownLatch republished = new CountDownLatch(2);
        final CountDownLatch publishFailed = new CountDownLatch(1);
        final CountDownLatch reRegistered = new CountDownLatch(1);

        @Override public void memberAdded(String m, long e) { added.countDown(); }
        @Override public void memberRemoved(String m, long e) { removed.countDown(); }
        @Override public void refused(Refusal r) { refused.countDown(); }
        @Override public void reconnected(long revision, boolean resync) { resumed.countDown(); }
        @Override public void published(String m, long e) { republished.countDown(); }
        @Override public void publishFailed(String m, Throwable cause) { publishFailed.countDown(); }
        @Override public void memberReRegistered(String m, long e) { reRegistered.countDown(); }
    }

    private static void await(CountDownLatch latch, String what) throws InterruptedException {
        assertTrue(latch.await(10, TimeUnit.SECONDS), what);
    }

    @Test
    void aMembershipsLifeShowsUpAsMeters() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Latches latches = new Latches();
        try (InMemoryCluster cluster = InMemoryCluster.withManualClock();
                DataTransport ta = open("a");
                DataTransport tb = open("b");
                DataTransport tc = open("c")) {
            Directory da = cluster.connect(PREFIX);
            Membership a = Membership.builder(ta, da).flapInterval(Duration.ZERO)
                    .listener(new MicrometerMembershipListener(registry)).listener(latches).build();
            Membership b = Membership.builder(tb, cluster.connect(PREFIX)).build();
            Membership c = Membership.builder(tc, cluster.connect(PREFIX)).build();
            try {
                await(latches.added, "two members added");
                b.close();
                await(latches.removed, "one removed");
                cluster.put(PREFIX + "junk", "junk".getBytes(StandardCharsets.US_ASCII));
                await(latches.refused, "the junk refused");
                cluster.cutOff(da);
                cluster.loseLease(PREFIX + "a");
                await(latches.publishFailed, "publishing while cut off failed");
                cluster.reconnect(da);
                await(latches.resumed, "back");
                await(latches.republished, "published again");
                await(latches.reRegistered, "c re-registered after the loss");
                String[] tags = {"member", "a", "prefix", PREFIX};
                assertEquals(1, registry.get("blockxfer.membership.members").tags(tags).gauge().value());
                assertEquals(2, registry.get("blockxfer.membership.changes").tags(tags).tag("change", "added")
                        .counter().count());
                assertEquals(1, registry.get("blockxfer.membership.changes").tags(tags).tag("change", "removed")
                        .counter().count());
                assertEquals(1, registry.get("blockxfer.membership.changes").tags(tags)
                        .tag("change", "re-registered").counter().count());
                assertEquals(1, registry.get("blockxfer.membership.refusals").tags(tags).tag("reason", "malformed")
                        .counter().count());
                assertEquals(0, registry.get("blockxfer.membership.refusals").tags(tags).tag("reason", "bad-mac")
                        .counter().count(), "every reason is there from the start");
                assertEquals(1, registry.get("blockxfer.membership.connection").tags(tags)
                        .tag("change", "disconnected").counter().count());
                assertEquals(1, registry.get("blockxfer.membership.connection").tags(tags).tag("change", "resumed")
                        .counter().count());
                assertEquals(2, registry.get("blockxfer.membership.own").tags(tags).tag("change", "published")
                        .counter().count());
                assertEquals(1, registry.get("blockxfer.membership.own").tags(tags).tag("change", "lease-lost")
                        .counter().count());
                assertTrue(registry.get("blockxfer.membership.own").tags(tags).tag("change", "publish-failed")
                        .counter().count() >= 1, "publishing while cut off failed");
            } finally {
                c.close();
                a.close();
            }
        }
    }

    @Test
    void aMembershipWhoseIdANewerProcessTookCountsItSuperseded() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CountDownLatch superseded = new CountDownLatch(1);
        try (InMemoryCluster cluster = InMemoryCluster.withManualClock();
                DataTransport older = open("x-one");
                DataTransport newer = open("x-two");
                Membership a = Membership.builder(older, cluster.connect(PREFIX)).memberId("x")
                        .listener(new MicrometerMembershipListener(registry)).listener(new MembershipListener() {
                            @Override
                            public void entrySuperseded(String m, long epoch, long newerEpoch) {
                                superseded.countDown();
                            }
                        }).build();
                Membership b = Membership.builder(newer, cluster.connect(PREFIX)).memberId("x").build()) {
            await(superseded, "superseded");
            assertTrue(b.epoch() > a.epoch(), "the newer process took the id");
            assertEquals(1, registry.get("blockxfer.membership.own").tags("member", "x", "prefix", PREFIX)
                    .tag("change", "superseded").counter().count());
        }
    }
}
