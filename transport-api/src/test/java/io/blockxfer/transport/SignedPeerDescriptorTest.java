package io.blockxfer.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.UnauthenticatedPeerException.Reason;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.Optional;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** Descriptors signed with a deployment key: the wire format, tampering, rotation, and old blobs. */
class SignedPeerDescriptorTest {

    private static final PeerDescriptor PLAIN = new PeerDescriptor("loopback", "e66978b6d0f4f4e6", 0x7f0012345000L,
            16, 4096, new byte[] {1, 2, 3, 4, 5});
    private static final DeploymentKeyRing RING = DeploymentKeyRing.of("k1", DeploymentKeyRingTest.key(1));
    /** An unsigned descriptor as the release before signatures encoded it. */
    private static final String OLD_UNSIGNED_BLOB = "4258504401000000086c6f6f706261636b1065363639373862366430663466"
            + "34653600503412007f00001000000000100000000000000500000001020304055ba355fa";

    private static byte[] withValidChecksum(byte[] blob) {
        CRC32C crc = new CRC32C();
        crc.update(blob, 0, blob.length - 4);
        ByteBuffer.wrap(blob).order(ByteOrder.LITTLE_ENDIAN).putInt(blob.length - 4, (int) crc.getValue());
        return blob;
    }

    @Test
    void unsignedEncodingsOfEarlierReleasesStillDecodeAndAreReproducedExactly() {
        byte[] old = HexFormat.of().parseHex(OLD_UNSIGNED_BLOB);
        PeerDescriptor d = PeerDescriptor.decode(old);
        assertEquals(PLAIN, d);
        assertFalse(d.isSigned());
        assertEquals(Optional.empty(), d.keyId());
        assertArrayEquals(old, PLAIN.encode(), "unsigned blobs keep their format byte for byte");
    }

    @Test
    void aSignedDescriptorRoundTripsWithItsKeyIdAndMac() {
        PeerDescriptor signed = PLAIN.signedWith(RING);
        assertTrue(signed.isSigned());
        assertEquals(Optional.of("k1"), signed.keyId());
        byte[] blob = signed.encode();
        assertEquals(PLAIN.encode().length + 1 + 2 + 32, blob.length, "key id length, key id, HMAC-SHA-256");
        PeerDescriptor back = PeerDescriptor.decode(blob);
        assertEquals(signed, back);
        assertEquals(signed.hashCode(), back.hashCode());
        assertEquals(signed, PeerDescriptor.decode(blob, RING));
        RING.verify(back);
        assertNotEquals(PLAIN, signed, "the signature is part of the descriptor");
        assertEquals(PLAIN, signed.unsigned());
        assertArrayEquals(blob, PLAIN.signedWith(RING).encode(), "signing is deterministic");
        assertTrue(signed.toString().contains("signed with key 'k1'"), signed.toString());
    }

    @Test
    void everyChangedByteOfASignedBlobIsRejected() {
        byte[] good = PLAIN.signedWith(RING).encode();
        int macStart = good.length - 4 - 32;
        for (int i = 0; i < good.length; i++) {
            for (int flip : new int[] {0x01, 0x80, 0xff}) {
                byte[] changed = good.clone();
                changed[i] ^= (byte) flip;
                assertRejected(changed, i);
                if (i >= good.length - 4) {
                    continue; // changing the checksum itself: caught by it
                }
                byte[] recomputed = withValidChecksum(changed);
                assertRejected(recomputed, i);
                if (i >= 8 + 1 + 2) { // after header and key id: fields, metadata, MAC
                    var e = assertThrows(TransportException.class, () -> PeerDescriptor.decode(recomputed, RING));
                    if (e instanceof UnauthenticatedPeerException u) {
                        assertEquals(Reason.CHANGED_AFTER_SIGNING, u.reason(), "byte " + i);
                        assertTrue(u.getMessage().contains("changed after signing"), u.getMessage());
                    } else {
                        fail("byte " + i + " changed with the checksum recomputed must fail the MAC first: " + e);
                    }
                    if (i < macStart) {
                        // what a decode without the ring lets through, the ring's verify still rejects
                        try {
                            PeerDescriptor parsed = PeerDescriptor.decode(recomputed);
                            var v = assertThrows(UnauthenticatedPeerException.class, () -> RING.verify(parsed));
                            assertEquals(Reason.CHANGED_AFTER_SIGNING, v.reason());
                        } catch (MalformedPeerDescriptorException malformed) {
                            // a field out of range: rejected by the parser already
                        }
                    }
                }
            }
        }
    }

    private static void assertRejected(byte[] blob, int position) {
        try {
            PeerDescriptor.decode(blob, RING);
            fail("a blob changed at byte " + position + " was accepted");
        } catch (MalformedPeerDescriptorException | UnauthenticatedPeerException expected) {
            // rejected
        }
        try {
            RING.verify(PeerDescriptor.decode(blob));
            fail("a blob changed at byte " + position + " decoded and verified");
        } catch (MalformedPeerDescriptorException | UnauthenticatedPeerException expected) {
            // rejected
        }
    }

    @Test
    void anUnsignedBlobIsRejectedByADecodeWithTheRing() {
        var e = assertThrows(UnauthenticatedPeerException.class, () -> PeerDescriptor.decode(PLAIN.encode(), RING));
        assertEquals(Reason.UNSIGNED, e.reason());
        assertTrue(e.getMessage().contains("unsigned"), e.getMessage());
        var v = assertThrows(UnauthenticatedPeerException.class, () -> RING.verify(PLAIN));
        assertEquals(Reason.UNSIGNED, v.reason());
    }

    @Test
    void aDescriptorSignedWithAnotherKeyIdIsRejectedNamingTheKey() {
        DeploymentKeyRing other = DeploymentKeyRing.of("k9", DeploymentKeyRingTest.key(9));
        byte[] blob = PLAIN.signedWith(other).encode();
        var e = assertThrows(UnauthenticatedPeerException.class, () -> PeerDescriptor.decode(blob, RING));
        assertEquals(Reason.UNKNOWN_KEY, e.reason());
        assertTrue(e.getMessage().contains("'k9'") && e.getMessage().contains("not in the key ring"), e.getMessage());
    }

    @Test
    void aDescriptorSignedWithOtherMaterialUnderTheSameIdIsRejected() {
        DeploymentKeyRing impostor = DeploymentKeyRing.of("k1", DeploymentKeyRingTest.key(2));
        byte[] blob = PLAIN.signedWith(impostor).encode();
        var e = assertThrows(UnauthenticatedPeerException.class, () -> PeerDescriptor.decode(blob, RING));
        assertEquals(Reason.CHANGED_AFTER_SIGNING, e.reason());
        assertEquals(Reason.CHANGED_AFTER_SIGNING,
                assertThrows(UnauthenticatedPeerException.class, () -> RING.verify(PeerDescriptor.decode(blob))).reason());
    }

    @Test
    void aPreviousKeyIsAcceptedWhileInTheRingAndRejectedOnceDropped() {
        byte[] signedWithOld = PLAIN.signedWith(RING).encode();
        DeploymentKeyRing rotated = DeploymentKeyRing.of("k2", DeploymentKeyRingTest.key(2))
                .withVerificationKey("k1", DeploymentKeyRingTest.key(1));
        assertEquals(Optional.of("k1"), PeerDescriptor.decode(signedWithOld, rotated).keyId());
        PeerDescriptor signedWithNew = PLAIN.signedWith(rotated);
        assertEquals(Optional.of("k2"), signedWithNew.keyId());
        assertEquals(Reason.UNKNOWN_KEY,
                assertThrows(UnauthenticatedPeerException.class, () -> RING.verify(signedWithNew)).reason(),
                "a process not yet given the new key rejects it");
        DeploymentKeyRing retired = rotated.withoutVerificationKey("k1");
        var e = assertThrows(UnauthenticatedPeerException.class, () -> PeerDescriptor.decode(signedWithOld, retired));
        assertEquals(Reason.UNKNOWN_KEY, e.reason());
        PeerDescriptor.decode(signedWithNew.encode(), retired);
    }

    @Test
    void malformedSignedBlobsAreTheTypedException() {
        byte[] good = PLAIN.signedWith(RING).encode();
        for (int length = 0; length < good.length; length++) {
            byte[] cut = java.util.Arrays.copyOf(good, length);
            assertThrows(TransportException.class, () -> PeerDescriptor.decode(cut, RING), "cut at " + length);
            assertThrows(MalformedPeerDescriptorException.class, () -> PeerDescriptor.decode(cut), "cut at " + length);
        }
        byte[] unknownFlag = good.clone();
        unknownFlag[6] = 3;
        var e = assertThrows(MalformedPeerDescriptorException.class, () -> PeerDescriptor.decode(unknownFlag, RING));
        assertTrue(e.getMessage().contains("flags"), e.getMessage());
    }
}
