package io.blockxfer.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** MACs of other modules' messages under the key ring: domains, key ids, rotation, refusals. */
class DomainMacTest {

    private static final String DOMAIN = "blockxfer.test.v1";
    private static final byte[] MESSAGE = "member a, epoch 7".getBytes(StandardCharsets.US_ASCII);

    private static byte[] key(int seed) {
        return DeploymentKeyRingTest.key(seed);
    }

    @Test
    void theMacIsHmacSha256OverTheLengthPrefixedDomainThenTheMessage() throws Exception {
        byte[] mac = DeploymentKeyRing.of("k1", key(1)).sign(DOMAIN, MESSAGE);
        ByteArrayOutputStream input = new ByteArrayOutputStream();
        input.write(DOMAIN.length());
        input.writeBytes(DOMAIN.getBytes(StandardCharsets.US_ASCII));
        input.writeBytes(MESSAGE);
        Mac hmac = Mac.getInstance("HmacSHA256");
        hmac.init(new SecretKeySpec(key(1), "HmacSHA256"));
        assertArrayEquals(hmac.doFinal(input.toByteArray()), mac);
        assertEquals(DeploymentKeyRing.MAC_LENGTH, mac.length);
    }

    @Test
    void aSignedMessageVerifiesUnderItsKeyAndNothingChangedVerifies() {
        DeploymentKeyRing ring = DeploymentKeyRing.of("k1", key(1));
        byte[] mac = ring.sign(DOMAIN, MESSAGE);
        ring.verify(DOMAIN, "k1", MESSAGE, mac);
        byte[] changed = MESSAGE.clone();
        changed[3] ^= 1;
        assertReason(UnauthenticatedPeerException.Reason.CHANGED_AFTER_SIGNING,
                () -> ring.verify(DOMAIN, "k1", changed, mac));
        byte[] badMac = mac.clone();
        badMac[31] ^= (byte) 0x80;
        assertReason(UnauthenticatedPeerException.Reason.CHANGED_AFTER_SIGNING,
                () -> ring.verify(DOMAIN, "k1", MESSAGE, badMac));
        assertReason(UnauthenticatedPeerException.Reason.CHANGED_AFTER_SIGNING,
                () -> ring.verify("blockxfer.other.v1", "k1", MESSAGE, mac));
        var e = assertReason(UnauthenticatedPeerException.Reason.UNKNOWN_KEY,
                () -> ring.verify(DOMAIN, "k9", MESSAGE, mac));
        assertTrue(e.getMessage().contains("'k9'") && e.getMessage().contains(DOMAIN), e.getMessage());
        DeploymentKeyRing sameIdOtherKey = DeploymentKeyRing.of("k1", key(2));
        assertReason(UnauthenticatedPeerException.Reason.CHANGED_AFTER_SIGNING,
                () -> sameIdOtherKey.verify(DOMAIN, "k1", MESSAGE, mac));
    }

    @Test
    void domainsAreSeparatedFromEachOtherAndFromDescriptorSignatures() {
        DeploymentKeyRing ring = DeploymentKeyRing.of("k1", key(1));
        assertFalse(Arrays.equals(ring.sign("a", "bc".getBytes(StandardCharsets.US_ASCII)),
                ring.sign("ab", "c".getBytes(StandardCharsets.US_ASCII))), "the length prefix keeps a|bc and ab|c apart");
        PeerDescriptor signed = new PeerDescriptor("loopback", "", 0, 4, 64, new byte[8]).signedWith(ring);
        byte[] descriptorMac = signed.mac();
        for (String domain : List.of("B", "BXPD", DOMAIN, "x".repeat(DeploymentKeyRing.MAX_DOMAIN_LENGTH))) {
            assertReason(UnauthenticatedPeerException.Reason.CHANGED_AFTER_SIGNING,
                    () -> ring.verify(domain, "k1", signed.signedBytes(), descriptorMac));
            byte[] stripped = Arrays.copyOfRange(signed.signedBytes(), 1, signed.signedBytes().length);
            assertReason(UnauthenticatedPeerException.Reason.CHANGED_AFTER_SIGNING,
                    () -> ring.verify(domain, "k1", stripped, descriptorMac));
        }
    }

    @Test
    void rotationWorksForDomainMacsAsForDescriptors() {
        DeploymentKeyRing old = DeploymentKeyRing.of("k1", key(1));
        DeploymentKeyRing step1 = old.withVerificationKey("k2", key(2));
        DeploymentKeyRing step2 = DeploymentKeyRing.of("k2", key(2)).withVerificationKey("k1", key(1));
        DeploymentKeyRing step3 = DeploymentKeyRing.of("k2", key(2));
        byte[] byOld = old.sign(DOMAIN, MESSAGE);
        byte[] byNew = step2.sign(DOMAIN, MESSAGE);
        step1.verify(DOMAIN, "k1", MESSAGE, byOld);
        step1.verify(DOMAIN, "k2", MESSAGE, byNew);
        step2.verify(DOMAIN, "k1", MESSAGE, byOld);
        step3.verify(DOMAIN, "k2", MESSAGE, byNew);
        assertReason(UnauthenticatedPeerException.Reason.UNKNOWN_KEY, () -> step3.verify(DOMAIN, "k1", MESSAGE, byOld));
        assertReason(UnauthenticatedPeerException.Reason.UNKNOWN_KEY, () -> old.verify(DOMAIN, "k2", MESSAGE, byNew));
    }

    @Test
    void malformedArgumentsAreRefusedByName() {
        DeploymentKeyRing ring = DeploymentKeyRing.of("k1", key(1));
        byte[] mac = ring.sign(DOMAIN, MESSAGE);
        for (String bad : List.of("", "has space", "slash/", "x".repeat(DeploymentKeyRing.MAX_DOMAIN_LENGTH + 1))) {
            var e = assertThrows(IllegalArgumentException.class, () -> ring.sign(bad, MESSAGE), bad);
            assertTrue(e.getMessage().contains("domain"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> ring.verify(bad, "k1", MESSAGE, mac), bad);
        }
        var e = assertThrows(IllegalArgumentException.class,
                () -> ring.verify(DOMAIN, "k1", MESSAGE, Arrays.copyOf(mac, 31)));
        assertTrue(e.getMessage().contains("31"), e.getMessage());
        assertThrows(NullPointerException.class, () -> ring.sign(null, MESSAGE));
        assertThrows(NullPointerException.class, () -> ring.sign(DOMAIN, null));
        assertThrows(NullPointerException.class, () -> ring.verify(DOMAIN, null, MESSAGE, mac));
        assertThrows(NullPointerException.class, () -> ring.verify(DOMAIN, "k1", null, mac));
        assertThrows(NullPointerException.class, () -> ring.verify(DOMAIN, "k1", MESSAGE, null));
    }

    private static UnauthenticatedPeerException assertReason(UnauthenticatedPeerException.Reason reason,
            org.junit.jupiter.api.function.Executable call) {
        var e = assertThrows(UnauthenticatedPeerException.class, call);
        assertEquals(reason, e.reason(), e.getMessage());
        return e;
    }
}
