package io.blockxfer.nixl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.nixl.NixlOptions;
import io.blockxfer.nixl.NixlProvider;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.Availability;
import io.blockxfer.transport.spi.TransferEngine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A removed peer's connection stays open, idle, and adding the peer again reuses it: NIXL 1.0 to
 * 1.5.1 cannot close a live peer's UCX endpoint (UCX keeps it and its sockets until the agent is
 * destroyed), so every invalidation of a live peer used to leave two established loopback sockets
 * behind. Idle connections are bounded, and failed or superseded ones are not kept.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class NixlConnectionReuseTest {

    private static final int BLOCKS = 8;
    private static final long BLOCK = 4096;

    private final List<NixlEngine> engines = new ArrayList<>();

    @BeforeEach
    void nixl() {
        Availability a = new NixlProvider().availability();
        if (!a.isAvailable()) {
            if (io.blockxfer.tck.TckEnvironment.fromSystem().requires("nixl")) {
                fail("nixl required but unavailable: " + a.cause());
            }
            Assumptions.abort(a.cause());
        }
    }

    @AfterEach
    void close() {
        for (NixlEngine e : engines) {
            e.close(false);
        }
    }

    private NixlEngine open(String name, String... options) {
        TransportConfig.Builder b = TransportConfig.builder(RegionSpec.allocate(BLOCKS, BLOCK)).agentName(name)
                .closeTimeout(Duration.ofSeconds(2));
        for (int i = 0; i < options.length; i += 2) {
            b.option(options[i], options[i + 1]);
        }
        NixlEngine e = new NixlEngine("nixl", b.build());
        engines.add(e);
        return e;
    }

    private static PeerDescriptor descriptor(NixlEngine target) {
        return PeerDescriptor.of("nixl", "", target.region(), target.agentMetadata());
    }

    /** One WRITE of block 0 to the peer's block 1, polled to its end; returns whether it succeeded. */
    private static boolean write(NixlEngine initiator, Object peer) {
        Object x = initiator.submit(1, peer, TransferOp.WRITE, new int[] {0}, new int[] {1});
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int state;
        while ((state = initiator.status(x)) == TransferEngine.PENDING) {
            if (System.nanoTime() > deadline) {
                fail("a WRITE stayed in flight for 20 s");
            }
            Thread.onSpinWait();
        }
        initiator.release(x);
        return state == TransferEngine.DONE;
    }

    private static long openFds() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }

    @Test
    void reAddingALivePeerReusesItsConnectionAndLeavesNoSockets() throws IOException {
        NixlEngine a = open("reuse-a");
        NixlEngine b = open("reuse-b");
        PeerDescriptor d = descriptor(b);
        for (int i = 0; i < 5; i++) { // warm-up: the first connection and its sockets
            Object p = a.connect("b", d);
            assertTrue(write(a, p), "WRITE before the loop");
            a.disconnect(p);
        }
        long reusedBefore = a.reusedConnections();
        long fds = openFds();
        for (int i = 0; i < 200; i++) {
            Object p = a.connect("b", d);
            if (i % 50 == 0) {
                assertTrue(write(a, p), "WRITE over a reused connection, cycle " + i);
            }
            a.disconnect(p);
            assertEquals(1, a.idleConnections(), "the removed peer's connection is kept idle");
        }
        assertEquals(reusedBefore + 200, a.reusedConnections(), "every re-add reused the idle connection");
        long grown = openFds() - fds;
        assertTrue(grown <= 2, "200 add/remove cycles opened " + grown + " file descriptors (400 without reuse)");
    }

    @Test
    void withoutIdleConnectionsEveryRemovalClosesAndEveryAddLoadsAgain() {
        NixlEngine a = open("no-idle-a", NixlOptions.IDLE_CONNECTIONS, "0");
        NixlEngine b = open("no-idle-b");
        PeerDescriptor d = descriptor(b);
        for (int i = 0; i < 3; i++) {
            Object p = a.connect("b", d);
            assertTrue(write(a, p));
            a.disconnect(p);
            assertEquals(0, a.idleConnections());
        }
        assertEquals(0, a.reusedConnections());
    }

    @Test
    void idleConnectionsAreBoundedAndTheLongestIdleIsClosedFirst() {
        NixlEngine a = open("bound-a", NixlOptions.IDLE_CONNECTIONS, "2");
        NixlEngine t1 = open("bound-t1");
        NixlEngine t2 = open("bound-t2");
        NixlEngine t3 = open("bound-t3");
        for (NixlEngine t : List.of(t1, t2, t3)) {
            Object p = a.connect("t", descriptor(t));
            assertTrue(write(a, p));
            a.disconnect(p);
        }
        assertEquals(2, a.idleConnections(), "at most nixl.idleConnections=2 stay idle");
        assertEquals(1, a.idleConnectionsClosed(), "the third removal closed the longest idle (t1)");
        long reused = a.reusedConnections();
        Object p3 = a.connect("t", descriptor(t3));
        assertEquals(reused + 1, a.reusedConnections(), "t3's connection was still idle");
        Object p1 = a.connect("t1", descriptor(t1));
        assertEquals(reused + 1, a.reusedConnections(), "t1's was closed, so it was loaded again");
        assertTrue(write(a, p1), "WRITE to t1 over its new connection");
        assertTrue(write(a, p3), "WRITE to t3 over its reused connection");
        a.disconnect(p1);
        a.disconnect(p3);
    }

    @Test
    void aFailedPeersConnectionIsNotKept() {
        NixlEngine a = open("failed-a");
        NixlEngine b = open("failed-b");
        Object p = a.connect("b", descriptor(b));
        assertTrue(write(a, p));
        b.close(false);
        assertThrows(IllegalStateException.class, () -> a.submit(2, p, TransferOp.WRITE, new int[] {0},
                new int[] {1}), "a WRITE to a closed transport of this JVM fails at once");
        a.disconnect(p);
        assertEquals(0, a.idleConnections(), "a dead peer's connection is invalidated, not kept");
    }

    @Test
    void aNewIncarnationUnderTheSameNameReplacesTheIdleConnection() {
        NixlEngine a = open("incarnation-a");
        NixlEngine old = open("incarnation-b");
        Object p = a.connect("b", descriptor(old));
        assertTrue(write(a, p));
        a.disconnect(p);
        assertEquals(1, a.idleConnections());
        old.close(false);
        NixlEngine restarted = open("incarnation-b");
        long reused = a.reusedConnections();
        Object q = a.connect("b", descriptor(restarted));
        assertEquals(reused, a.reusedConnections(), "new metadata under the same name is loaded, not reused");
        assertEquals(0, a.idleConnections(), "the old incarnation's idle connection was invalidated");
        assertTrue(write(a, q), "WRITE to the restarted peer");
        a.disconnect(q);
    }
}
