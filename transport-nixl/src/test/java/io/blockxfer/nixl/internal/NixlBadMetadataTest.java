package io.blockxfer.nixl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.nixl.NixlInterop;
import io.blockxfer.nixl.NixlProvider;
import io.blockxfer.transport.IncompatiblePeerException;
import io.blockxfer.transport.MalformedPeerDescriptorException;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.TransportException;
import io.blockxfer.transport.spi.Availability;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Untrusted metadata against the engine itself: every bad blob is a typed exception, registers
 * nothing in NIXL (the remote name stays unknown to the agent), crashes nothing, and leaves the
 * engine able to add the real peer afterwards. Covers the truncations that would poison NIXL
 * 1.5.1's agent for that name if they reached {@code load_remote_md}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NixlBadMetadataTest {

    private static final int BLOCKS = 32;
    private static final long BLOCK = 4096;

    private NixlEngine initiator;
    private NixlEngine target;
    private PeerDescriptor good;

    @BeforeEach
    void open() {
        Availability a = new NixlProvider().availability();
        if (!a.isAvailable()) {
            if (io.blockxfer.tck.TckEnvironment.fromSystem().requires("nixl")) {
                fail("nixl required but unavailable: " + a.cause());
            }
            Assumptions.abort(a.cause());
        }
        initiator = new NixlEngine("nixl", config("bad-md-initiator"));
        target = new NixlEngine("nixl", config("bad-md-target"));
        good = PeerDescriptor.of("nixl", "", target.region(), target.agentMetadata());
    }

    private static TransportConfig config(String name) {
        // no idle connections: a disconnect must then leave the remote agent unloaded, which is what
        // shows that nothing of an accepted garbled blob stays behind (NixlConnectionReuseTest covers
        // the idle ones)
        return TransportConfig.builder(RegionSpec.allocate(BLOCKS, BLOCK)).agentName(name)
                .option(io.blockxfer.nixl.NixlOptions.IDLE_CONNECTIONS, "0").closeTimeout(Duration.ofSeconds(2))
                .build();
    }

    @AfterEach
    void close() {
        if (initiator != null) {
            initiator.close(false);
        }
        if (target != null) {
            target.close(false);
        }
    }

    private PeerDescriptor withMetadata(byte[] metadata) {
        return new PeerDescriptor("nixl", "", good.baseAddress(), good.numBlocks(), good.blockLength(), metadata);
    }

    private void assertRejected(PeerDescriptor d, Class<? extends TransportException> type, String what) {
        TransportException e = assertThrows(TransportException.class, () -> initiator.connect("bad", d), what);
        assertTrue(type.isInstance(e), what + ": expected " + type.getSimpleName() + ", got " + e);
        assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), what + ": message");
        assertEquals(NixlStatus.ERROR_NOT_FOUND, initiator.agent().checkRemote("bad-md-target"),
                what + ": left the remote agent loaded in NIXL");
    }

    private void assertGoodPeerStillWorks() {
        Object peer = initiator.connect("good", good);
        Object x = initiator.submit(0, peer, io.blockxfer.transport.TransferOp.WRITE, new int[] {1}, new int[] {2});
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int s;
        while ((s = initiator.status(x)) == NixlEngine.PENDING) {
            if (System.nanoTime() > deadline) {
                fail("transfer to the good peer never finished");
            }
        }
        assertEquals(NixlEngine.DONE, s, "transfer to the good peer after rejected metadata");
        initiator.release(x);
        initiator.disconnect(peer);
        assertEquals(NixlStatus.ERROR_NOT_FOUND, initiator.agent().checkRemote("bad-md-target"),
                "disconnect left the remote loaded");
    }

    @Test
    void everyTruncationOfTheRawNixlBlobIsRejectedBeforeNixlSeesIt() {
        byte[] raw = NixlInterop.nixlMetadata(good.metadata());
        for (int cut = 0; cut < raw.length; cut++) {
            byte[] truncated = Arrays.copyOf(raw, cut);
            assertRejected(withMetadata(truncated), MalformedPeerDescriptorException.class, "raw blob cut to " + cut);
        }
        assertGoodPeerStillWorks();
    }

    @Test
    void everyTruncationAndBitFlipOfTheFramedMetadataIsRejected() {
        byte[] framed = good.metadata();
        for (int cut = 1; cut < framed.length; cut++) {
            assertRejected(withMetadata(Arrays.copyOf(framed, cut)), MalformedPeerDescriptorException.class,
                    "framed metadata cut to " + cut);
        }
        Random random = new Random(3);
        for (int i = 0; i < 500; i++) {
            byte[] flipped = framed.clone();
            flipped[random.nextInt(flipped.length)] ^= (byte) (1 << random.nextInt(8));
            assertRejected(withMetadata(flipped), MalformedPeerDescriptorException.class, "bit flip " + i);
        }
        assertGoodPeerStillWorks();
    }

    @Test
    void garbageAndForeignMetadataAreRejected() {
        Random random = new Random(5);
        List<byte[]> blobs = new ArrayList<>();
        blobs.add(new byte[0]);
        blobs.add("nixlSerDes|".getBytes(StandardCharsets.US_ASCII));
        blobs.add("nixlSerDes|Agent\u0008".getBytes(StandardCharsets.US_ASCII));
        for (int i = 0; i < 200; i++) {
            byte[] b = new byte[1 + random.nextInt(900)];
            random.nextBytes(b);
            if (i % 2 == 0 && b.length > 11) {
                System.arraycopy("nixlSerDes|".getBytes(StandardCharsets.US_ASCII), 0, b, 0, 11);
            }
            blobs.add(b);
        }
        // the loopback backend's metadata: magic "LBK1", 24 bytes
        blobs.add(new byte[] {'L', 'B', 'K', '1', 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 9, 9, 9, 9, 9, 9, 9, 9});
        for (byte[] b : blobs) {
            assertRejected(withMetadata(b), MalformedPeerDescriptorException.class, "garbage of " + b.length + " B");
        }
        assertGoodPeerStillWorks();
    }

    @Test
    void ownAgentAndSameNamedAgentAreIncompatible() {
        PeerDescriptor own = PeerDescriptor.of("nixl", "", initiator.region(), initiator.agentMetadata());
        assertThrows(IncompatiblePeerException.class, () -> initiator.connect("self", own), "own metadata");
        NixlEngine twin = new NixlEngine("nixl", config("bad-md-initiator"));
        try {
            PeerDescriptor sameName = PeerDescriptor.of("nixl", "", twin.region(), twin.agentMetadata());
            IncompatiblePeerException e = assertThrows(IncompatiblePeerException.class,
                    () -> initiator.connect("twin", sameName), "an agent named like the local one");
            assertTrue(e.getMessage().contains("bad-md-initiator"), e.getMessage());
        } finally {
            twin.close(false);
        }
        assertGoodPeerStillWorks();
    }

    @Test
    void aDescriptorBeyondTheRegisteredRegionIsRejected() {
        byte[] md = good.metadata();
        List<PeerDescriptor> lies = List.of(
                new PeerDescriptor("nixl", "", good.baseAddress(), BLOCKS + 1, BLOCK, md),
                new PeerDescriptor("nixl", "", good.baseAddress() + BLOCK, BLOCKS, BLOCK, md),
                new PeerDescriptor("nixl", "", good.baseAddress() - BLOCK, 2, BLOCK, md),
                new PeerDescriptor("nixl", "", 4096, 1, BLOCK, md),
                new PeerDescriptor("nixl", "", good.baseAddress(), BLOCKS / 2, BLOCK * 4, md));
        for (PeerDescriptor lie : lies) {
            assertRejected(lie, IncompatiblePeerException.class, "lying geometry " + lie);
        }
        byte[] raw = NixlInterop.nixlMetadata(md);
        assertThrows(IllegalArgumentException.class,
                () -> NixlInterop.peerDescriptor(raw, "", good.baseAddress(), BLOCKS * 2, BLOCK), "raw, too many blocks");
        assertRejected(new PeerDescriptor("nixl", "", good.baseAddress(), BLOCKS * 2, BLOCK, raw),
                IncompatiblePeerException.class, "raw blob, too many blocks");
        // a smaller view of the same region is fine
        Object peer = initiator.connect("half", new PeerDescriptor("nixl", "", good.baseAddress() + 4 * BLOCK,
                BLOCKS / 2, BLOCK, md));
        initiator.disconnect(peer);
        assertGoodPeerStillWorks();
    }

    @Test
    void bitFlipsInsideNixlsConnectionBlobNeverCrashAndLeaveNothingHalfLoaded() {
        byte[] raw = NixlInterop.nixlMetadata(good.metadata());
        int accepted = 0;
        int rejected = 0;
        List<String> outcomes = new ArrayList<>();
        Random random = new Random(9);
        for (int i = 0; i < 60; i++) {
            byte[] flipped = raw.clone();
            // the UCX connection blob ("c" field) starts right after the backend name: bytes 70..240
            int at = 70 + random.nextInt(Math.min(170, raw.length - 70));
            flipped[at] ^= (byte) (1 << random.nextInt(8));
            PeerDescriptor d = withMetadata(flipped);
            try {
                Object peer = initiator.connect("flipped", d);
                accepted++;
                outcomes.add(tryOneTransfer(peer));
                initiator.disconnect(peer);
            } catch (TransportException e) {
                rejected++;
            }
            assertEquals(NixlStatus.ERROR_NOT_FOUND, initiator.agent().checkRemote("bad-md-target"),
                    "flip at " + at + " left the remote agent loaded");
        }
        System.out.println("connection-blob bit flips: " + accepted + " accepted, " + rejected + " rejected; "
                + "transfers on the accepted ones: " + outcomes);
        assertGoodPeerStillWorks();
    }

    /** Submits one WRITE and waits up to 3 s: "done", "failed", "submit-failed" or "pending". */
    private String tryOneTransfer(Object peer) {
        Object x;
        try {
            x = initiator.submit(0, peer, io.blockxfer.transport.TransferOp.WRITE, new int[] {1}, new int[] {2});
        } catch (RuntimeException e) {
            return "submit-failed";
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        int s;
        while ((s = initiator.status(x)) == NixlEngine.PENDING && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        if (s == NixlEngine.PENDING) {
            initiator.abort(peer);
            s = initiator.status(x);
        }
        if (s != NixlEngine.PENDING) {
            initiator.release(x);
        }
        return s == NixlEngine.DONE ? "done" : s == NixlEngine.FAILED ? "failed" : "pending";
    }
}
