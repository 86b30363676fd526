package io.blockxfer.cli.internal.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.cli.internal.CliException;
import io.blockxfer.cli.internal.HostPort;
import io.blockxfer.cli.internal.JsonOutput;
import io.blockxfer.cli.internal.NotifyStamp;
import io.blockxfer.cli.internal.NotifyTally;
import io.blockxfer.cli.internal.PeerPair;
import io.blockxfer.cli.internal.TakerStyle;
import io.blockxfer.cli.internal.TargetNotifications;
import io.blockxfer.cli.internal.Tuning;
import io.blockxfer.transport.DataTransport;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * A bench server's target takes its notifications and reports their count and timing back over the
 * control channel ({@code bench --connect --notify}): server and initiator in this JVM on the real
 * loopback backend declared cross-process, so no native library is needed. The server says it
 * times notifications, and for each backend whether it carries them; a run's tally counts exactly
 * the notifications stamped with its tag; both ends read one kernel clock, so there is no offset.
 */
class ServedNotificationsTest {

    private final StringWriter log = new StringWriter();
    private BenchServer server;
    private Thread serving;

    @BeforeEach
    void start() {
        ServerConfig config = new ServerConfig(List.of(SameJvmLoopback.info()), List.of(), Map.of(), 64L << 20,
                Optional.empty());
        server = BenchServer.bind(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 0), config,
                new PrintWriter(log, true));
        serving = Thread.ofPlatform().name("notifying-bench-server").start(server::serve);
    }

    @AfterEach
    void stop() throws InterruptedException {
        server.stop();
        assertTrue(server.awaitStopped(Duration.ofSeconds(30)), "the server stops");
        serving.join(10_000);
    }

    private BenchClient connect() {
        return BenchClient.connect(new HostPort("127.0.0.1", server.address().getPort()), Optional.empty());
    }

    /** Writes block 0 to block 1 of the target with {@code tag}'s stamp, and waits until it is done. */
    private static void write(DataTransport initiator, long tag) throws InterruptedException {
        byte[] stamp = NotifyStamp.buffer();
        NotifyStamp.write(stamp, tag, System.nanoTime());
        long id = initiator.writeBlocks(PeerPair.PEER, new int[] {0}, new int[] {1}, stamp);
        boolean[] done = new boolean[1];
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!done[0] && System.nanoTime() < end) {
            initiator.poll(PeerPair.PEER, (t, ok) -> done[0] |= t == id && ok, 100, TimeUnit.MILLISECONDS);
        }
        assertTrue(done[0], "transfer " + id + " done");
    }

    @Test
    void theServedTargetCountsAndTimesTheArmedRunsNotifications() throws Exception {
        try (BenchClient client = connect()) {
            assertTrue(client.welcome().timesNotifications(), client.welcome()::toString);
            assertTrue(client.welcome().backends().getFirst().notifications(), client.welcome()::toString);
            RemoteSite site = new RemoteSite(client);
            assertEquals(Optional.empty(), site.notifyRefusal(new SameJvmLoopback()));
            try (PeerPair pair = site.open(new SameJvmLoopback(), 4, 4096, Tuning.DEFAULT)) {
                TargetNotifications target = pair.notifications();
                target.arm(41, TakerStyle.WAIT);
                for (int i = 0; i < 6; i++) {
                    write(pair.initiator(), 41);
                    write(pair.initiator(), 42); // another run's
                }
                NotifyTally tally = target.disarm(6, Duration.ofSeconds(10));
                assertEquals(6, tally.count());
                assertEquals(6, tally.latencies().getTotalCount());
                assertEquals(0, tally.early(), "one kernel clock: nothing arrives before its submit");
                assertTrue(tally.latencies().getMinValue() > 0, "timed from the submit");
                assertEquals(0, target.clockErrorNanos(), "both ends share the kernel's clock");
                assertTrue(client.clocks().shared());

                target.arm(43, TakerStyle.SPIN);
                write(pair.initiator(), 43);
                assertEquals(1, target.disarm(1, Duration.ofSeconds(10)).count(),
                        "a second run, counted afresh, taken by a spinning thread");
            }
        }
    }

    /** A server of an earlier version says nothing of notifications in its welcome: no notified rows there. */
    @Test
    void aServerThatDoesNotTimeNotificationsIsNamedInTheRefusal() throws Exception {
        FrameProxy.Rewriter earlierServer = (index, body, earlier) -> {
            if (index != 1) {
                return body;
            }
            ObjectNode welcome = (ObjectNode) JsonOutput.mapper().readTree(body);
            welcome.remove("notify");
            welcome.withArray("backends").forEach(b -> ((ObjectNode) b).remove("notifications"));
            return JsonOutput.mapper().writeValueAsBytes(welcome);
        };
        try (FrameProxy proxy = new FrameProxy(server.address(), earlierServer);
                BenchClient client = BenchClient.connect(new HostPort("127.0.0.1", proxy.address().getPort()),
                        Optional.empty())) {
            assertFalse(client.welcome().timesNotifications());
            assertEquals(Optional.of("the bench server at 127.0.0.1:" + proxy.address().getPort() + " does not time"
                    + " notifications (an earlier blockxfer version there)"),
                    new RemoteSite(client).notifyRefusal(new SameJvmLoopback()));
        }
    }

    @Test
    void aDisarmWithoutAnArmAndTheUnmeasuredTagAreRefusedAndTheSessionGoesOn() throws Exception {
        try (BenchClient client = connect()) {
            BenchClient.Opened opened = client.open("loopback", 4, 4096, io.blockxfer.transport.ProgressMode.AUTO);
            CliException e = assertThrows(CliException.class, () -> client.disarmNotifications(opened.target(), 1,
                    Duration.ofMillis(10)));
            assertTrue(e.getMessage().contains("no notifications were armed on this target"), e::getMessage);
            e = assertThrows(CliException.class, () -> client.armNotifications(opened.target(), NotifyStamp.UNMEASURED,
                    0, TakerStyle.WAIT));
            assertTrue(e.getMessage().contains("marks notifications that are not measured"), e::getMessage);
            client.armNotifications(opened.target(), 5, 0, TakerStyle.SPIN);
            assertEquals(0, client.disarmNotifications(opened.target(), 0, Duration.ZERO).count());
            client.closeTarget(opened.target());
        }
    }
}
