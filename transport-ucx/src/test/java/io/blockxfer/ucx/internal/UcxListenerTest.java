package io.blockxfer.ucx.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.tck.BlockPattern;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.IncompatiblePeerException;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PeerRegistrationException;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.TransportException;
import io.blockxfer.transport.spi.ManagedTransport;
import io.blockxfer.ucx.UcxOptions;
import io.blockxfer.ucx.UcxProvider;
import io.blockxfer.ucx.UcxTestSupport;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Peers that UCX reaches over TCP alone are connected through their listener (which gives UCX
 * 1.18's zero-copy TCP put in peer error mode), and transfers land as with any peer; peers on this
 * host with shared memory keep the worker-address path (copies into the mapped region); the
 * listener can be turned off, fails clearly where it cannot bind, and a listener that is gone fails
 * the registration instead of hanging it. The tests run over loopback ({@code ucx.net_devices=lo}),
 * which the route takes only for a peer whose loopback is this host's.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class UcxListenerTest {

    private static final int BLOCKS = 16;
    private static final long BLOCK = 64 * 1024;
    private static final Set<Capability> CAPABILITIES = Set.of(Capability.READ, Capability.CALLER_REGION,
            Capability.BACKEND_REGION, Capability.CROSS_PROCESS);

    @BeforeEach
    void ucx() {
        UcxTestSupport.requireUcx();
    }

    private static TransportConfig config(String agent, String... options) {
        TransportConfig.Builder b = TransportConfig.builder(RegionSpec.allocate(BLOCKS, BLOCK)).agentName(agent)
                .option(UcxOptions.KEEPALIVE, "60s");
        for (int i = 0; i < options.length; i += 2) {
            b.option(options[i], options[i + 1]);
        }
        return b.build();
    }

    /** A transport whose engine a test can look into. */
    private record Opened(UcxEngine engine, DataTransport transport) implements AutoCloseable {
        static Opened open(TransportConfig config) {
            UcxEngine e = new UcxEngine(config);
            return new Opened(e, new ManagedTransport(e, config, CAPABILITIES));
        }

        @Override
        public void close() {
            transport.close();
        }
    }

    private static void await(DataTransport t, String peer, Set<Long> ids) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!ids.isEmpty()) {
            PollResult r = t.poll(peer);
            for (int i = 0; i < r.doneCount(); i++) {
                ids.remove(r.doneId(i));
            }
            assertEquals(0, r.failedCount(), "a transfer failed: " + r);
            assertTrue(System.nanoTime() < deadline, "transfers " + ids + " never reported");
        }
    }

    private static void eventually(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, what);
            Thread.sleep(10);
        }
    }

    /** Writes blocks 0-3 to 8-11 and reads 12-13 into 4-5, and checks every byte. */
    private static void writeAndRead(DataTransport initiator, DataTransport target) {
        for (int i = 0; i < BLOCKS; i++) {
            BlockPattern.fill(initiator.region().block(i), BlockPattern.seed(1, i));
            BlockPattern.fill(target.region().block(i), BlockPattern.seed(2, i));
        }
        Set<Long> ids = new HashSet<>();
        ids.add(initiator.writeBlocks("t", new int[] {0, 1, 2, 3}, new int[] {9, 8, 10, 11}));
        ids.add(initiator.readBlocks("t", new int[] {4, 5}, new int[] {13, 12}));
        await(initiator, "t", ids);
        int[][] written = {{0, 9}, {1, 8}, {2, 10}, {3, 11}};
        for (int[] w : written) {
            assertEquals(-1, BlockPattern.firstMismatch(target.region().block(w[1]), BlockPattern.seed(1, w[0])));
        }
        assertEquals(-1, BlockPattern.firstMismatch(initiator.region().block(4), BlockPattern.seed(2, 13)));
        assertEquals(-1, BlockPattern.firstMismatch(initiator.region().block(5), BlockPattern.seed(2, 12)));
    }

    @Test
    void aPeerReachedOverTcpAloneIsConnectedThroughItsListener() throws Exception {
        try (Opened target = Opened.open(config("listening-target", UcxOptions.TLS, "tcp,self"));
                Opened initiator = Opened.open(config("listening-initiator", UcxOptions.TLS, "tcp,self"))) {
            UcxMetadata published = UcxMetadata.decode("t", target.transport().localDescriptor().metadata());
            UcxMetadata.Listener l = published.listener();
            assertNotNull(l, "a transport that may use tcp listens");
            assertEquals(InetAddress.getLoopbackAddress().getHostAddress(),
                    InetAddress.getByAddress(l.boundAddress()).getHostAddress(), "its one TCP interface is lo");
            initiator.transport().addPeer("t", target.transport().localDescriptor());
            assertEquals(2, target.engine().loop().acceptedNow(), "the write and the read endpoint connected"
                    + " through the listener");
            writeAndRead(initiator.transport(), target.transport());
            assertEquals(0, initiator.engine().loop().mappedWrites() + initiator.engine().loop().mappedReads());
            assertEquals(WorkerDriver.NETWORK_IDLE_SPIN_NANOS, target.engine().loop().idleSpinNanos(),
                    "a target that accepted a connection through its listener stays hot only briefly after its"
                    + " last work");
            assertEquals(WorkerDriver.IDLE_SPIN_NANOS, initiator.engine().loop().idleSpinNanos(),
                    "the initiator keeps its moment, to catch its next submit");
            initiator.transport().removePeer("t");
            eventually(() -> target.engine().loop().acceptedNow() == 0, "the target closes the endpoints of an"
                    + " initiator that left: " + target.engine().loop().acceptedNow() + " still open");
        }
    }

    @Test
    void aPeerOnThisHostWithSharedMemoryKeepsTheWorkerAddressAndItsCopies() {
        try (Opened target = Opened.open(config("shm-target"));
                Opened initiator = Opened.open(config("shm-initiator"))) {
            assertNotNull(UcxMetadata.decode("t", target.transport().localDescriptor().metadata()).listener(),
                    "it listens (tcp on lo) for peers on other hosts");
            initiator.transport().addPeer("t", target.transport().localDescriptor());
            writeAndRead(initiator.transport(), target.transport());
            assertEquals(0, target.engine().loop().acceptedNow(), "nothing connected through the listener");
            assertEquals(WorkerDriver.IDLE_SPIN_NANOS, initiator.engine().loop().idleSpinNanos(),
                    "on one host the loop stays hot after its last work, so back-to-back transfers pay no wake-up");
            assertEquals(WorkerDriver.IDLE_SPIN_NANOS, target.engine().loop().idleSpinNanos());
            assertEquals(1, initiator.engine().loop().mappedWrites(), "the WRITE was a copy into the mapped region");
            assertEquals(1, initiator.engine().loop().mappedReads(), "the READ was a copy out of it");
        }
    }

    @Test
    void withTheListenerOffTcpPeersAreConnectedByWorkerAddress() {
        try (Opened target = Opened.open(config("unlistening-target", UcxOptions.TLS, "tcp,self",
                UcxOptions.LISTEN, "off"));
                Opened initiator = Opened.open(config("unlistening-initiator", UcxOptions.TLS, "tcp,self"))) {
            assertNull(UcxMetadata.decode("t", target.transport().localDescriptor().metadata()).listener());
            initiator.transport().addPeer("t", target.transport().localDescriptor());
            writeAndRead(initiator.transport(), target.transport());
            assertEquals(0, target.engine().loop().acceptedNow());
        }
    }

    @Test
    void aListenerThatCannotBindIsAClearError() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByAddress(new byte[] {127, 0, 0, 1}))) {
            String at = "127.0.0.1:" + taken.getLocalPort();
            TransportException e = assertThrows(TransportException.class, () -> new UcxProvider().open(
                    config("taken", UcxOptions.TLS, "tcp,self", UcxOptions.LISTEN, at)).close());
            assertTrue(e.getMessage().contains("could not listen") && e.getMessage().contains(at), e.getMessage());
        }
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> new UcxProvider().open(
                config("bad", UcxOptions.LISTEN, "no-such-host.invalid:7800")).close());
        assertTrue(bad.getMessage().contains(UcxOptions.LISTEN), bad.getMessage());
    }

    @Test
    void aListenerThatIsGoneFailsTheRegistrationWithItsReason() {
        PeerDescriptor gone;
        try (DataTransport target = new UcxProvider().open(config("gone-target", UcxOptions.TLS, "tcp,self"))) {
            gone = target.localDescriptor();
        }
        try (DataTransport initiator = new UcxProvider().open(config("gone-initiator", UcxOptions.TLS, "tcp,self"))) {
            PeerRegistrationException e = assertThrows(PeerRegistrationException.class,
                    () -> initiator.addPeer("t", gone));
            assertTrue(e.getMessage().contains("through its listener"), e.getMessage());
        }
    }

    /**
     * A descriptor whose worker address leads nowhere in this process but whose listener is one of
     * this process's transports is that transport, and must describe its region: else puts would
     * land at the claimed addresses inside this process.
     */
    @Test
    void aDescriptorLeadingToAListenerOfThisProcessMustDescribeItsRegion() {
        try (DataTransport own = new UcxProvider().open(config("own", UcxOptions.TLS, "tcp,self"));
                DataTransport initiator = new UcxProvider().open(config("asked", UcxOptions.TLS, "tcp,self"))) {
            UcxMetadata closed;
            PeerDescriptor closedPeer;
            // opened after the others, so its region lies outside theirs
            try (DataTransport other = new UcxProvider().open(TransportConfig.builder(RegionSpec.allocate(4, BLOCK))
                    .agentName("closed").option(UcxOptions.TLS, "tcp,self").build())) {
                closedPeer = other.localDescriptor();
                closed = UcxMetadata.decode("c", closedPeer.metadata());
            }
            UcxMetadata mine = UcxMetadata.decode("o", own.localDescriptor().metadata());
            byte[] lie = new UcxMetadata(closed.memoryAddress(), closed.memoryLength(), closed.workerAddress(),
                    closed.rkey(), mine.listener()).encode();
            PeerDescriptor lying = new PeerDescriptor(closedPeer.backend(), closedPeer.fingerprint(),
                    closedPeer.baseAddress(), closedPeer.numBlocks(), closedPeer.blockLength(), lie);
            IncompatiblePeerException e = assertThrows(IncompatiblePeerException.class,
                    () -> initiator.addPeer("liar", lying));
            assertTrue(e.getMessage().contains("region"), e.getMessage());
        }
    }
}
