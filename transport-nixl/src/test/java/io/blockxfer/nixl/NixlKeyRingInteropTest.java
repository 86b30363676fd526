package io.blockxfer.nixl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.UnauthenticatedPeerException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A transport with a deployment key ring and plain NIXL peers ({@link NixlInterop}): a raw NIXL
 * blob carries no signature, so such a peer is refused as unsigned, before NIXL sees its
 * metadata, unless the transport opts in with {@code acceptUnsignedPeers(true)}; the opt-in
 * covers only unsigned descriptors, never a bad signature. (The Python side of the same rule is
 * in {@link NixlPythonInteropTest}.)
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NixlKeyRingInteropTest {

    private static final int BLOCKS = 8;
    private static final long BLOCK = 4096;
    private static final DeploymentKeyRing RING = DeploymentKeyRing.of("k1", key(1));
    private static final DeploymentKeyRing OTHER_RING = DeploymentKeyRing.of("k1", key(2));

    private final List<DataTransport> open = new ArrayList<>();
    private DataTransport plain;

    private static byte[] key(int seed) {
        byte[] k = new byte[DeploymentKeyRing.MIN_KEY_BYTES];
        Arrays.fill(k, (byte) (31 * seed + 7));
        return k;
    }

    @BeforeEach
    void start() {
        NixlTests.assumeNixl();
        // the "plain NIXL agent": only its raw NIXL blob and geometry are used, as from vLLM's Python agent
        plain = open(NixlTests.config("plain-nixl", BLOCKS, BLOCK));
    }

    @AfterEach
    void stop() {
        for (DataTransport t : open) {
            t.close();
        }
    }

    private DataTransport open(TransportConfig.Builder b) {
        DataTransport t = NixlTests.open(b.build());
        open.add(t);
        return t;
    }

    private static PeerDescriptor plainPeer(DataTransport initiator, DataTransport target) {
        byte[] raw = NixlInterop.nixlMetadata(target.agentMetadata());
        return NixlInterop.peerDescriptor(raw, initiator.configFingerprint(), target.region().baseAddress(),
                target.region().numBlocks(), target.region().blockLength());
    }

    @Test
    void withAKeyRingAPlainNixlPeerIsRejectedAsUnsigned() {
        DataTransport keyed = open(NixlTests.config("keyed", BLOCKS, BLOCK).keyRing(RING));
        PeerDescriptor raw = plainPeer(keyed, plain);
        assertFalse(raw.isSigned());
        UnauthenticatedPeerException e = assertThrows(UnauthenticatedPeerException.class,
                () -> keyed.addPeer("plain", raw));
        assertEquals(UnauthenticatedPeerException.Reason.UNSIGNED, e.reason());
        assertTrue(e.getMessage().contains("acceptUnsignedPeers"), "the message names the opt-in: " + e.getMessage());
        assertFalse(keyed.removePeer("plain"), "nothing was registered");
        assertEquals(DataTransport.NOT_SUBMITTED, keyed.writeBlocks("plain", new int[] {0}, new int[] {0}),
                "no transfer to a refused peer");
    }

    @Test
    void withTheOptInAPlainNixlPeerIsAddedAndWrittenTo() {
        DataTransport keyed = open(NixlTests.config("keyed-opt-in", BLOCKS, BLOCK).keyRing(RING)
                .acceptUnsignedPeers(true));
        NixlTests.fill(keyed.region().block(2), 5, 2);
        keyed.addPeer("plain", plainPeer(keyed, plain));
        long id = keyed.writeBlocks("plain", new int[] {2}, new int[] {6});
        assertEquals(Map.of(id, true), NixlTests.await(keyed, "plain", Set.of(id), Duration.ofSeconds(20)));
        assertEquals(-1, NixlTests.mismatch(plain.region().block(6), 5, 2), "the plain peer's block 6");
    }

    @Test
    void theOptInDoesNotAcceptABadSignature() {
        DataTransport keyed = open(NixlTests.config("keyed-strict", BLOCKS, BLOCK).keyRing(RING)
                .acceptUnsignedPeers(true));
        DataTransport stranger = open(NixlTests.config("stranger", BLOCKS, BLOCK).keyRing(OTHER_RING));
        UnauthenticatedPeerException e = assertThrows(UnauthenticatedPeerException.class,
                () -> keyed.addPeer("stranger", stranger.localDescriptor()));
        assertEquals(UnauthenticatedPeerException.Reason.CHANGED_AFTER_SIGNING, e.reason(),
                "same key id, other key: " + e.getMessage());
        DataTransport friend = open(NixlTests.config("friend", BLOCKS, BLOCK).keyRing(RING));
        assertTrue(friend.localDescriptor().isSigned());
        keyed.addPeer("friend", friend.localDescriptor());
        assertTrue(keyed.removePeer("friend"), "a signed blockxfer peer is still accepted");
    }
}
