package io.blockxfer.nixl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.nixl.internal.NixlLibraryLocator;
import io.blockxfer.tck.process.ChildProcess;
import io.blockxfer.tck.process.ChildProcessException;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.Notification;
import io.blockxfer.transport.NotificationHandler;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.UnauthenticatedPeerException;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Interop with NIXL's own Python API from the same wheel: the peer is a {@code nixl_agent} in a
 * {@code python3} process. Java adds it as a peer from its raw metadata, writes and reads blocks,
 * and Python verifies the bytes; then Python adds Java's agent and writes and reads Java's blocks.
 * With a deployment key ring, the Python peer (whose NIXL blob cannot be signed) is refused as
 * unsigned unless the transport opts in with {@code acceptUnsignedPeers(true)}. Notifications: a
 * Java transfer's message reaches Python's {@code get_new_notifs} as the bare payload (no
 * blockxfer frame) under Java's agent name, and Python's {@code transfer(..., notif_msg=...)} and
 * {@code send_notif} reach Java as {@code FOREIGN} notifications, named by the peer id Java gave
 * the Python agent (its NIXL agent name when it has none), refused under a key ring without the
 * opt-in.
 * Skipped with the cause when {@code python3} or the package is missing, unless
 * {@code -Dblockxfer.tck.require=nixl} makes that a failure.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NixlPythonInteropTest {

    private static final int BLOCKS = 16;
    private static final long BLOCK = 64 * 1024;
    private static final long SEED_JAVA = 1;
    private static final long SEED_PYTHON = 100;

    private PythonPeer python;
    private DataTransport jvm;

    @BeforeEach
    void start(@TempDir Path tmp) throws IOException {
        NixlTests.assumeNixl();
        Path natives = NixlTests.nativesDir();
        String skip = null;
        // NIXL's Python API of the very wheel the Java side loaded (the same release and CUDA build)
        Path site = NixlLibraryLocator.fromSystem().locate().library().map(l -> l.toAbsolutePath().getParent()
                .getParent()).orElse(null);
        if (natives == null || site == null || !(Files.isDirectory(site.resolve("nixl_cu12"))
                || Files.isDirectory(site.resolve("nixl_cu13")))) {
            skip = "no nixl_cu12/nixl_cu13 Python package beside the loaded library (" + site + "; run"
                    + " scripts/install-natives nixl)";
        }
        Path script = tmp.resolve("nixl_python_peer.py");
        try (InputStream in = NixlPythonInteropTest.class.getResourceAsStream("nixl_python_peer.py")) {
            Files.copy(in, script);
        }
        // NIXL <= 1.3's Python API imports torch at module load although its numpy/DRAM path never calls
        // it; an empty module of that name stands in, so no multi-GiB torch install is needed
        Path stubs = Files.createDirectories(tmp.resolve("stubs"));
        Files.writeString(stubs.resolve("torch.py"), "class Tensor:\n    pass\n");
        if (skip == null) {
            try {
                python = new PythonPeer(script, List.of(site, natives.resolve("python"), stubs), "py-peer", BLOCKS,
                        BLOCK);
            } catch (ChildProcessException | IllegalStateException e) {
                skip = "the Python NIXL peer did not start: " + e.getMessage();
            }
        }
        if (skip != null) {
            if (NixlTests.required()) {
                fail(skip + " (required by blockxfer.tck.require=nixl)");
            }
            Assumptions.abort(skip);
        }
        jvm = NixlTests.open(NixlTests.config("java-peer", BLOCKS, BLOCK).build());
        for (int b = 0; b < BLOCKS; b++) {
            NixlTests.fill(jvm.region().block(b), SEED_JAVA, b);
        }
    }

    @AfterEach
    void stop() {
        if (jvm != null) {
            jvm.close();
        }
        if (python != null) {
            python.close();
        }
    }

    @Test
    void javaWritesAndReadsPythonBlocksThenPythonWritesAndReadsJavaBlocks() {
        // --- Java initiator -> Python target
        PeerDescriptor py = NixlInterop.peerDescriptor(python.metadata, jvm.configFingerprint(), python.base,
                python.blocks, python.blockLength);
        assertEquals("py-peer", NixlInterop.agentName(py.metadata()));
        jvm.addPeer("py", py);
        int[] local = {0, 1, 2, 3, 9};
        int[] remote = {7, 6, 5, 4, 15};
        long write = jvm.writeBlocks("py", local, remote);
        long read = jvm.readBlocks("py", new int[] {10, 11, 12}, new int[] {0, 3, 8});
        Map<Long, Boolean> outcomes = NixlTests.await(jvm, "py", Set.of(write, read), Duration.ofSeconds(20));
        assertEquals(Map.of(write, true, read, true), outcomes, "Java's WRITE and READ to the Python peer");
        for (int i = 0; i < local.length; i++) {
            assertEquals("AT -1", python.request("CHECK " + remote[i] + " " + SEED_JAVA + " " + local[i]),
                    "Python block " + remote[i] + " after Java's WRITE of block " + local[i]);
        }
        assertEquals("AT -1", python.request("CHECK 8 " + SEED_PYTHON + " 8"), "an untouched Python block");
        int[] readFrom = {0, 3, 8};
        for (int i = 0; i < 3; i++) {
            assertEquals(-1, NixlTests.mismatch(jvm.region().block(10 + i), SEED_PYTHON, readFrom[i]),
                    "Java block " + (10 + i) + " after READ of Python block " + readFrom[i]);
        }
        assertTrue(jvm.feature(NixlTelemetry.class).orElseThrow().totals().transfers() >= 2, "telemetry recorded");

        // --- Python initiator -> Java target
        String md = Base64.getEncoder().encodeToString(NixlInterop.nixlMetadata(jvm.agentMetadata()));
        assertEquals("OK java-peer", python.request("PEER " + md + " " + jvm.region().baseAddress() + " " + BLOCKS
                + " " + BLOCK));
        assertEquals("DONE", python.request("XFER WRITE 12,13,14 5,6,7"), "Python's WRITE to Java");
        for (int i = 0; i < 3; i++) {
            assertEquals(-1, NixlTests.mismatch(jvm.region().block(5 + i), SEED_PYTHON, 12 + i),
                    "Java block " + (5 + i) + " after Python's WRITE");
        }
        assertEquals("DONE", python.request("XFER READ 1,2 0,15"), "Python's READ from Java");
        assertEquals("AT -1", python.request("CHECK 1 " + SEED_JAVA + " 0"), "Python block 1 after its READ");
        assertEquals("AT -1", python.request("CHECK 2 " + SEED_JAVA + " 15"), "Python block 2 after its READ");
        assertEquals(-1, NixlTests.mismatch(jvm.region().block(4), SEED_JAVA, 4), "an untouched Java block");
        assertTrue(jvm.removePeer("py"));
    }

    @Test
    void notificationsReachNixlsPythonApiAsTheBareMessageAndPythonsReachJavaAsForeignOnes()
            throws InterruptedException {
        // --- Java -> Python: Python reads exactly the payload Java sent, from Java's agent name
        PeerDescriptor py = NixlInterop.peerDescriptor(python.metadata, jvm.configFingerprint(), python.base,
                python.blocks, python.blockLength);
        jvm.addPeer("py", py);
        long write = jvm.writeBlocks("py", new int[] {4, 5}, new int[] {2, 3}, bytes("kv-ready:req-7"));
        long read = jvm.readBlocks("py", new int[] {8}, new int[] {9}, bytes("done reading:req-7"));
        assertEquals(Map.of(write, true, read, true), NixlTests.await(jvm, "py", Set.of(write, read),
                Duration.ofSeconds(20)));
        String got = python.request("NOTIFS 2 10000");
        assertEquals(Set.of("java-peer:" + b64("kv-ready:req-7"), "java-peer:" + b64("done reading:req-7")),
                Set.of(got.substring("NOTIFS ".length()).split(" ", -1)), "what get_new_notifs returned: " + got);
        assertEquals("AT -1", python.request("CHECK 2 " + SEED_JAVA + " 4"), "the WRITE's bytes");
        assertTrue(jvm.sendNotification("py", bytes("bye")));
        assertEquals("NOTIFS java-peer:" + b64("bye"), python.request("NOTIFS 1 10000"));
        assertEquals("NOTIFS", python.request("NOTIFS 1 300"), "nothing twice");

        // --- Python -> Java: transfer(..., notif_msg=...) and send_notif, named by the peer id Java gave Python
        String md = Base64.getEncoder().encodeToString(NixlInterop.nixlMetadata(jvm.agentMetadata()));
        assertEquals("OK java-peer", python.request("PEER " + md + " " + jvm.region().baseAddress() + " " + BLOCKS
                + " " + BLOCK));
        long[] bad = {-2};
        assertEquals("DONE", python.request("XFER WRITE 12,13 5,6 " + b64("py-wrote")));
        Notification n = next(jvm, m -> bad[0] = Math.max(NixlTests.mismatch(jvm.region().block(5), SEED_PYTHON, 12),
                NixlTests.mismatch(jvm.region().block(6), SEED_PYTHON, 13)));
        assertEquals(Notification.Kind.FOREIGN, n.kind());
        assertEquals("py", n.sender(), "the peer id Java registered the Python agent under");
        assertEquals("py-peer", n.senderAgent(), "the Python agent's own NIXL name");
        assertTrue(n.payloadEquals(bytes("py-wrote")), n.toString());
        assertEquals(-1, n.transferId());
        assertFalse(n.authenticated());
        assertEquals(-1, bad[0], "Python's WRITE had landed when its message was delivered");
        assertEquals("SENT", python.request("SEND " + b64("lease-renew")));
        Notification standalone = next(jvm, m -> { });
        assertEquals(Notification.Kind.FOREIGN, standalone.kind());
        assertTrue(standalone.payloadEquals(bytes("lease-renew")));
        assertTrue(jvm.removePeer("py"));
        assertEquals("SENT", python.request("SEND " + b64("after removal")));
        assertEquals("py-peer", next(jvm, m -> { }).sender(), "a sender Java has no peer id for: its NIXL agent name");
        assertEquals(0, jvm.pollNotifications(m -> { }, 300, TimeUnit.MILLISECONDS), "nothing twice");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static String b64(String s) {
        return Base64.getEncoder().encodeToString(bytes(s));
    }

    /** The next notification {@code t} receives (within 10 s); {@code atDelivery} runs as it is delivered. */
    private static Notification next(DataTransport t, NotificationHandler atDelivery) throws InterruptedException {
        List<Notification> got = new ArrayList<>();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (got.isEmpty() && System.nanoTime() - end < 0) {
            t.pollNotifications(n -> {
                if (got.isEmpty()) {
                    atDelivery.onNotification(n);
                }
                got.add(n);
            }, 100, TimeUnit.MILLISECONDS);
        }
        assertEquals(1, got.size(), "one notification: " + got);
        return got.get(0);
    }

    @Test
    void withAKeyRingThePythonPeerNeedsTheExplicitOptIn() throws InterruptedException {
        byte[] key = new byte[DeploymentKeyRing.MIN_KEY_BYTES];
        new SecureRandom().nextBytes(key);
        DeploymentKeyRing ring = DeploymentKeyRing.of("deploy-1", key);
        try (DataTransport strict = NixlTests.open(NixlTests.config("java-keyed", BLOCKS, BLOCK).keyRing(ring)
                .build());
                DataTransport optIn = NixlTests.open(NixlTests.config("java-keyed-opt-in", BLOCKS, BLOCK)
                        .keyRing(ring).acceptUnsignedPeers(true).build())) {
            // NIXL's own blob cannot carry a signature: refused as unsigned unless the config opts in
            PeerDescriptor forStrict = NixlInterop.peerDescriptor(python.metadata, strict.configFingerprint(),
                    python.base, python.blocks, python.blockLength);
            UnauthenticatedPeerException e = assertThrows(UnauthenticatedPeerException.class,
                    () -> strict.addPeer("py", forStrict));
            assertEquals(UnauthenticatedPeerException.Reason.UNSIGNED, e.reason());
            assertFalse(strict.removePeer("py"), "nothing was registered");

            PeerDescriptor forOptIn = NixlInterop.peerDescriptor(python.metadata, optIn.configFingerprint(),
                    python.base, python.blocks, python.blockLength);
            optIn.addPeer("py", forOptIn);
            NixlTests.fill(optIn.region().block(3), SEED_JAVA, 3);
            long write = optIn.writeBlocks("py", new int[] {3}, new int[] {11});
            assertEquals(Map.of(write, true), NixlTests.await(optIn, "py", Set.of(write), Duration.ofSeconds(20)));
            assertEquals("AT -1", python.request("CHECK 11 " + SEED_JAVA + " 3"),
                    "Python block 11 after the opted-in transport's WRITE");
            assertTrue(optIn.removePeer("py"));

            // Python's messages cannot be signed either: refused and counted by the strict transport,
            // delivered (unauthenticated) by the one that opted in
            String strictMd = Base64.getEncoder().encodeToString(NixlInterop.nixlMetadata(strict.agentMetadata()));
            assertEquals("OK java-keyed", python.request("PEER " + strictMd + " " + strict.region().baseAddress() + " "
                    + BLOCKS + " " + BLOCK));
            assertEquals("SENT", python.request("SEND " + b64("unsigned")));
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (strict.notificationStats().refused() == 0 && System.nanoTime() < end) {
                assertEquals(0, strict.pollNotifications(m -> { }, 20, TimeUnit.MILLISECONDS));
            }
            assertEquals(1, strict.notificationStats().refused(), "refused as unsigned");
            String optInMd = Base64.getEncoder().encodeToString(NixlInterop.nixlMetadata(optIn.agentMetadata()));
            assertEquals("OK java-keyed-opt-in", python.request("PEER " + optInMd + " " + optIn.region().baseAddress()
                    + " " + BLOCKS + " " + BLOCK));
            assertEquals("SENT", python.request("SEND " + b64("unsigned")));
            Notification n = next(optIn, m -> { });
            assertEquals(Notification.Kind.FOREIGN, n.kind());
            assertFalse(n.authenticated());
            assertEquals("py-peer", n.sender());
        }
    }

    /** A {@code python3} process running {@code nixl_python_peer.py}, one request at a time. */
    private static final class PythonPeer implements AutoCloseable {
        private static final Duration START = Duration.ofSeconds(60);
        private static final Duration REPLY = Duration.ofSeconds(30);
        private final ChildProcess process;
        final byte[] metadata;
        final long base;
        final int blocks;
        final long blockLength;

        PythonPeer(Path script, List<Path> pythonPath, String name, int blocks, long blockLength) {
            ChildProcess.Builder builder = ChildProcess.builder(List.of("python3", script.toString(), name,
                    Integer.toString(blocks), Long.toString(blockLength))).name("python3 " + name)
                    .environment("PYTHONPATH", String.join(File.pathSeparator,
                            pythonPath.stream().map(Path::toString).toList()))
                    .stderrTo(line -> { });
            if (System.getenv("UCX_NET_DEVICES") == null) {
                builder.environment("UCX_NET_DEVICES", "lo");
            }
            this.process = builder.start();
            try {
                String ready = process.nextLine(START);
                if (!ready.startsWith("READY ")) {
                    throw new IllegalStateException("python3 answered '" + ready + "'; stderr: " + stderr());
                }
                String[] f = ready.split(" ", -1);
                this.metadata = Base64.getDecoder().decode(f[1]);
                this.base = Long.parseLong(f[2]);
                this.blocks = Integer.parseInt(f[3]);
                this.blockLength = Long.parseLong(f[4]);
            } catch (RuntimeException e) {
                process.kill();
                throw e;
            }
        }

        private String stderr() {
            return String.join("\n", process.stderrTail());
        }

        String request(String command) {
            String r = process.request(command, REPLY);
            if (r.startsWith("ERR ")) {
                fail("Python peer: " + r.substring(4) + "; stderr: " + stderr());
            }
            return r;
        }

        @Override
        public void close() {
            if (process.isAlive()) {
                process.send("CLOSE");
            }
            process.close(); // closes its stdin, kills it after 15 s
        }
    }
}
