package io.blockxfer.transport.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.UnauthenticatedPeerException;
import io.blockxfer.transport.UnauthenticatedPeerException.Reason;
import io.blockxfer.transport.testing.RecordingEngine;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A transport with a deployment key ring registers only peers whose descriptor the ring
 * authenticates, and rejects the rest before the engine hears of them.
 */
class PeerAuthenticationTest {

    private static final DeploymentKeyRing RING = DeploymentKeyRing.of("k1", key(1));
    private static final PeerDescriptor PEER = new PeerDescriptor("recording", "", 4096, 16, 64, new byte[] {1, 2});

    private final TransportConfig config = TransportConfig.builder(RegionSpec.allocate(16, 64)).keyRing(RING).build();
    private final RecordingEngine engine = new RecordingEngine("recording", config);
    private final ManagedTransport transport = new ManagedTransport(engine, config, EnumSet.noneOf(Capability.class));

    @AfterEach
    void close() {
        transport.close();
    }

    private static byte[] key(int seed) {
        byte[] k = new byte[32];
        for (int i = 0; i < k.length; i++) {
            k[i] = (byte) (seed * 13 + i);
        }
        return k;
    }

    /** Adds the peer both ways and checks each is rejected for {@code reason} with nothing registered. */
    private void assertRejectedBeforeConnect(PeerDescriptor descriptor, Reason reason, String words) {
        var sync = assertThrows(UnauthenticatedPeerException.class, () -> transport.addPeer("p", descriptor));
        // addPeerAsync refuses a descriptor it cannot admit before it returns a future
        var async = assertThrows(UnauthenticatedPeerException.class, () -> transport.addPeerAsync("p", descriptor));
        for (UnauthenticatedPeerException e : List.of(sync, async)) {
            assertEquals(reason, e.reason());
            assertTrue(e.getMessage().contains("peer 'p'") && e.getMessage().contains(words), e.getMessage());
        }
        assertEquals(List.of(), engine.connects(), "the engine must not be called for a rejected descriptor");
        assertEquals(DataTransport.NOT_SUBMITTED, transport.writeBlocks("p", new int[] {0}, new int[] {0}));
        assertFalse(transport.removePeer("p"), "a rejected peer leaves nothing behind");
    }

    private static PeerDescriptor changedAfterSigning(PeerDescriptor signed, int position) {
        byte[] blob = signed.encode();
        blob[position] ^= 0x40;
        CRC32C crc = new CRC32C();
        crc.update(blob, 0, blob.length - 4);
        ByteBuffer.wrap(blob).order(ByteOrder.LITTLE_ENDIAN).putInt(blob.length - 4, (int) crc.getValue());
        return PeerDescriptor.decode(blob);
    }

    @Test
    void theLocalDescriptorIsSignedWithTheSigningKey() {
        PeerDescriptor local = transport.localDescriptor();
        assertEquals(Optional.of("k1"), local.keyId());
        RING.verify(local);
        RING.verify(PeerDescriptor.decode(local.encode(), RING));
    }

    @Test
    void anUnsignedDescriptorIsRejectedBeforeTheEngineIsCalled() {
        assertRejectedBeforeConnect(PEER, Reason.UNSIGNED, "unsigned");
    }

    @Test
    void aDescriptorSignedWithAKeyNotInTheRingIsRejectedBeforeTheEngineIsCalled() {
        PeerDescriptor foreign = PEER.signedWith(DeploymentKeyRing.of("k9", key(9)));
        assertRejectedBeforeConnect(foreign, Reason.UNKNOWN_KEY, "not in the key ring");
        PeerDescriptor sameIdOtherKey = PEER.signedWith(DeploymentKeyRing.of("k1", key(2)));
        assertRejectedBeforeConnect(sameIdOtherKey, Reason.CHANGED_AFTER_SIGNING, "changed after signing");
    }

    @Test
    void aDescriptorChangedAfterSigningIsRejectedBeforeTheEngineIsCalled() {
        PeerDescriptor signed = PEER.signedWith(RING);
        int metadataByte = signed.encode().length - 4 - 32 - 1;
        int blockCountByte = 8 + 3 + 1 + 9 + 1 + 8;
        for (int position : new int[] {metadataByte, blockCountByte}) {
            PeerDescriptor changed = changedAfterSigning(signed, position);
            assertTrue(changed.isSigned());
            assertRejectedBeforeConnect(changed, Reason.CHANGED_AFTER_SIGNING, "changed after signing");
        }
    }

    @Test
    void aRejectionLeavesARegisteredPeerAsItWas() throws Exception {
        engine.connectAllowed = true;
        transport.addPeer("p", PEER.signedWith(RING));
        engine.connectAllowed = false;
        assertThrows(UnauthenticatedPeerException.class, () -> transport.addPeer("p", PEER));
        assertThrows(UnauthenticatedPeerException.class, () -> transport.addPeerAsync("p", PEER));
        assertEquals(List.of("connect p"), engine.connects());
        long id = transport.writeBlocks("p", new int[] {0}, new int[] {0});
        assertTrue(id >= 0, "the registered peer still works");
        assertEquals(PollResult.of(new long[] {id}, new long[0]), transport.poll("p"));
        engine.connectAllowed = true;
        transport.addPeerAsync("p", PEER.signedWith(RING)).get(5, TimeUnit.SECONDS);
    }

    @Test
    void aDescriptorSignedWithTheRingIsRegistered() {
        engine.connectAllowed = true;
        transport.addPeer("p", PeerDescriptor.decode(PEER.signedWith(RING).encode(), RING));
        assertEquals(List.of("connect p"), engine.connects());
    }

    @Test
    void unsignedPeersAreAnExplicitOptInThatStillChecksSignatures() {
        TransportConfig optIn = config.toBuilder().acceptUnsignedPeers(true).build();
        RecordingEngine e = new RecordingEngine("recording", optIn);
        try (ManagedTransport t = new ManagedTransport(e, optIn, EnumSet.noneOf(Capability.class))) {
            e.connectAllowed = true;
            t.addPeer("unsigned", PEER);
            e.connectAllowed = false;
            var foreign = assertThrows(UnauthenticatedPeerException.class,
                    () -> t.addPeer("x", PEER.signedWith(DeploymentKeyRing.of("k9", key(9)))));
            assertEquals(Reason.UNKNOWN_KEY, foreign.reason());
            var changed = assertThrows(UnauthenticatedPeerException.class,
                    () -> t.addPeer("y", changedAfterSigning(PEER.signedWith(RING), 30)));
            assertEquals(Reason.CHANGED_AFTER_SIGNING, changed.reason());
            assertEquals(List.of("connect unsigned"), e.connects());
        }
    }

    @Test
    void withoutAKeyRingNothingIsSignedOrChecked() {
        TransportConfig open = TransportConfig.builder(RegionSpec.allocate(16, 64)).build();
        RecordingEngine e = new RecordingEngine("recording", open);
        e.connectAllowed = true;
        try (ManagedTransport t = new ManagedTransport(e, open, EnumSet.noneOf(Capability.class))) {
            assertFalse(t.localDescriptor().isSigned());
            t.addPeer("unsigned", PEER);
            t.addPeer("signed", PEER.signedWith(DeploymentKeyRing.of("k9", key(9))));
            assertEquals(2, e.connects().size());
        }
    }

    @Test
    void rotationAcceptsThePreviousKeyUntilItIsDropped() {
        PeerDescriptor oldSigned = PEER.signedWith(RING);
        DeploymentKeyRing rotated = DeploymentKeyRing.of("k2", key(2)).withVerificationKey("k1", key(1));
        TransportConfig during = TransportConfig.builder(RegionSpec.allocate(16, 64)).keyRing(rotated).build();
        RecordingEngine e1 = new RecordingEngine("recording", during);
        e1.connectAllowed = true;
        try (ManagedTransport t = new ManagedTransport(e1, during, EnumSet.noneOf(Capability.class))) {
            assertEquals(Optional.of("k2"), t.localDescriptor().keyId());
            t.addPeer("old", oldSigned);
        }
        TransportConfig after = during.toBuilder().keyRing(rotated.withoutVerificationKey("k1")).build();
        RecordingEngine e2 = new RecordingEngine("recording", after);
        try (ManagedTransport t = new ManagedTransport(e2, after, EnumSet.noneOf(Capability.class))) {
            var e = assertThrows(UnauthenticatedPeerException.class, () -> t.addPeer("old", oldSigned));
            assertEquals(Reason.UNKNOWN_KEY, e.reason());
            assertEquals(List.of(), e2.connects());
        }
    }
}
