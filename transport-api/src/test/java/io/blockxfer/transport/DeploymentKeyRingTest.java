package io.blockxfer.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** The deployment key ring: what it accepts as keys, rotation steps, and that it never shows a key. */
class DeploymentKeyRingTest {

    static byte[] key(int seed) {
        byte[] k = new byte[32];
        for (int i = 0; i < k.length; i++) {
            k[i] = (byte) (seed * 31 + i * 7 + 1);
        }
        return k;
    }

    @Test
    void keysShorterThan32BytesAreRefused() {
        var e = assertThrows(IllegalArgumentException.class, () -> DeploymentKeyRing.of("k1", new byte[31]));
        assertTrue(e.getMessage().contains("31 bytes") && e.getMessage().contains("32"), e.getMessage());
        DeploymentKeyRing ring = DeploymentKeyRing.of("k1", key(1));
        assertThrows(IllegalArgumentException.class, () -> ring.withVerificationKey("k0", new byte[16]));
    }

    @Test
    void keyIdsAreShortPrintableNames() {
        for (String bad : List.of("", "has space", "x".repeat(65), "é", "a/b")) {
            assertThrows(IllegalArgumentException.class, () -> DeploymentKeyRing.of(bad, key(1)), bad);
        }
        assertEquals("prod-2026.05_A", DeploymentKeyRing.of("prod-2026.05_A", key(1)).signingKeyId());
        assertThrows(NullPointerException.class, () -> DeploymentKeyRing.of(null, key(1)));
        assertThrows(NullPointerException.class, () -> DeploymentKeyRing.of("k", null));
    }

    @Test
    void rotationAddsAndDropsVerificationKeysButNeverTheSigningKey() {
        DeploymentKeyRing ring = DeploymentKeyRing.of("k2", key(2)).withVerificationKey("k1", key(1));
        assertEquals(List.of("k2", "k1"), List.copyOf(ring.keyIds()));
        assertTrue(ring.contains("k1"));
        assertThrows(IllegalArgumentException.class, () -> ring.withVerificationKey("k1", key(3)));
        assertThrows(IllegalArgumentException.class, () -> ring.withoutVerificationKey("k2"));
        assertThrows(IllegalArgumentException.class, () -> ring.withoutVerificationKey("k9"));
        DeploymentKeyRing dropped = ring.withoutVerificationKey("k1");
        assertFalse(dropped.contains("k1"));
        assertTrue(ring.contains("k1"), "rings are immutable");
    }

    @Test
    void keyMaterialIsCopiedAndNeverPrinted() {
        byte[] material = key(5);
        DeploymentKeyRing ring = DeploymentKeyRing.of("k5", material).withVerificationKey("k6", key(6));
        PeerDescriptor signed = new PeerDescriptor("loopback", "", 0, 1, 64, new byte[0]).signedWith(ring);
        Arrays.fill(material, (byte) 0);
        ring.verify(signed); // the caller's array changing does not change the ring
        TransportConfig config = TransportConfig.builder(RegionSpec.allocate(1, 64)).keyRing(ring).build();
        for (String text : List.of(ring.toString(), config.toString(), signed.toString())) {
            for (byte[] k : List.of(key(5), key(6))) {
                assertFalse(text.contains(HexFormat.of().formatHex(k)), text);
                assertFalse(text.toUpperCase(Locale.ROOT).contains(HexFormat.of().formatHex(k).toUpperCase(Locale.ROOT)),
                        text);
                assertFalse(text.contains(Base64.getEncoder().encodeToString(k)), text);
                assertFalse(text.contains(Arrays.toString(k)), text);
            }
        }
        assertTrue(ring.toString().contains("k5") && ring.toString().contains("k6"), ring.toString());
        assertTrue(config.toString().contains("k5"), config.toString());
    }

    @Test
    void theConfigCarriesTheRingAndTheOptInThroughToBuilder() {
        DeploymentKeyRing ring = DeploymentKeyRing.of("k1", key(1));
        TransportConfig plain = TransportConfig.builder(RegionSpec.allocate(1, 64)).build();
        assertTrue(plain.keyRing().isEmpty());
        assertFalse(plain.acceptUnsignedPeers(), "unsigned peers are an opt-in");
        TransportConfig config = plain.toBuilder().keyRing(ring).acceptUnsignedPeers(true).build();
        TransportConfig copy = config.toBuilder().build();
        assertEquals(ring, copy.keyRing().orElseThrow());
        assertTrue(copy.acceptUnsignedPeers());
        assertEquals(plain.fingerprint(), copy.fingerprint(), "keys are not config fields");
        assertTrue(copy.toBuilder().keyRing(null).build().keyRing().isEmpty());
    }
}
