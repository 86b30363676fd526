package io.blockxfer.directory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.UnauthenticatedPeerException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Optional;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The member entry envelope: round trips, its size, and every way a value from the directory is refused. */
class MemberEntryTest {

    static final DeploymentKeyRing RING = DeploymentKeyRing.of("k1", key(1));
    static final PeerDescriptor DESCRIPTOR = new PeerDescriptor("loopback", "e66978b6d0f4f4e6", 4096, 16, 1024,
            new byte[] {1, 2, 3, 4, 5, 6, 7, 8});

    static byte[] key(int seed) {
        byte[] k = new byte[32];
        Arrays.fill(k, (byte) seed);
        k[0] = (byte) (seed * 7 + 3);
        return k;
    }

    @Test
    void anEntryRoundTripsUnsignedAndSigned() {
        MemberEntry entry = MemberEntry.of("prefill-0", 1_700_000_000_000_000L, DESCRIPTOR);
        MemberEntry plain = MemberEntry.decode(entry.encode(null), null);
        assertEquals(entry, plain);
        assertEquals(DESCRIPTOR, plain.peerDescriptor());
        assertEquals(Optional.empty(), plain.keyId());
        MemberEntry signed = MemberEntry.decode(entry.encode(RING), RING);
        assertEquals("prefill-0", signed.memberId());
        assertEquals(1_700_000_000_000_000L, signed.epoch());
        assertArrayEquals(DESCRIPTOR.encode(), signed.descriptor());
        assertEquals(Optional.of("k1"), signed.keyId());
        assertEquals(Optional.of("k1"), MemberEntry.decode(entry.encode(RING), null).keyId(),
                "without a ring a signature is kept, unchecked");
    }

    @Test
    void anEntryIsNoLargerThanItsDescriptorNeedsIt() {
        MemberEntry entry = MemberEntry.of("m", 5, DESCRIPTOR);
        int descriptor = DESCRIPTOR.encode().length;
        assertEquals(descriptor + MemberEntry.UNSIGNED_OVERHEAD + 1, entry.encode(null).length);
        assertEquals(descriptor + MemberEntry.UNSIGNED_OVERHEAD + 1 + MemberEntry.SIGNED_EXTRA + 2,
                entry.encode(RING).length);
        assertEquals(33, MemberEntry.UNSIGNED_OVERHEAD);
    }

    @Test
    void aRingRefusesUnsignedForeignAndChangedEntriesBeforeParsingThem() {
        MemberEntry entry = MemberEntry.of("m", 5, DESCRIPTOR);
        assertReason(UnauthenticatedPeerException.Reason.UNSIGNED, entry.encode(null), RING);
        DeploymentKeyRing foreign = DeploymentKeyRing.of("k9", key(9));
        assertReason(UnauthenticatedPeerException.Reason.UNKNOWN_KEY, entry.encode(foreign), RING);
        DeploymentKeyRing sameIdOtherKey = DeploymentKeyRing.of("k1", key(2));
        assertReason(UnauthenticatedPeerException.Reason.CHANGED_AFTER_SIGNING, entry.encode(sameIdOtherKey), RING);
        // the epoch, the member id and the descriptor are all covered: change one, fix the checksum
        byte[] signed = entry.encode(RING);
        int epochAt = 4 + 2 + 2 + 1 + 2 + 1 + 1;
        for (int at : new int[] {epochAt, epochAt - 1, signed.length - 4 - 32 - 3}) {
            byte[] changed = signed.clone();
            changed[at] ^= 1;
            assertReason(UnauthenticatedPeerException.Reason.CHANGED_AFTER_SIGNING, withCrc(changed), RING);
        }
    }

    @Test
    void theLeaseRoundTripsUnderTheMacAndVersionOneIsRefusedForLackingIt() {
        MemberEntry entry = MemberEntry.of("m", 5, 0x694d7f1a2b3cL, DESCRIPTOR);
        assertEquals(0x694d7f1a2b3cL, MemberEntry.decode(entry.encode(RING), RING).lease());
        assertEquals(0x694d7f1a2b3cL, MemberEntry.decode(entry.encode(null), null).lease());
        assertEquals(0, MemberEntry.of("m", 5, DESCRIPTOR).lease(), "bound to no lease");
        assertThrows(IllegalArgumentException.class, () -> new MemberEntry("m", 5, -1, new byte[1]));
        byte[] signed = entry.encode(RING);
        int leaseAt = 4 + 2 + 2 + 1 + 2 + 1 + 1 + 8; // magic, version, flags, key id "k1", member id "m", epoch
        for (int at = leaseAt; at < leaseAt + 8; at++) {
            byte[] changed = signed.clone();
            changed[at] ^= 1;
            assertReason(UnauthenticatedPeerException.Reason.CHANGED_AFTER_SIGNING, withCrc(changed), RING);
        }
        byte[] v1 = entry.encode(null);
        v1[4] = 1;
        var e = assertThrows(MalformedEntryException.class, () -> MemberEntry.decode(withCrc(v1), null));
        assertTrue(e.getMessage().contains("version 1") && e.getMessage().contains("no lease"), e.getMessage());
    }

    @Test
    void aRotatedRingStillVerifiesEntriesOfItsOtherKeys() {
        MemberEntry entry = MemberEntry.of("m", 5, DESCRIPTOR);
        DeploymentKeyRing next = DeploymentKeyRing.of("k2", key(2)).withVerificationKey("k1", key(1));
        assertEquals(entry.epoch(), MemberEntry.decode(entry.encode(RING), next).epoch());
        assertReason(UnauthenticatedPeerException.Reason.UNKNOWN_KEY, entry.encode(RING),
                DeploymentKeyRing.of("k2", key(2)));
    }

    @Test
    void everyPrefixEveryBitFlipAndTrailingBytesAreMalformed() {
        for (DeploymentKeyRing ring : new DeploymentKeyRing[] {null, RING}) {
            byte[] value = MemberEntry.of("member-7", 99, DESCRIPTOR).encode(ring);
            for (int n = 0; n < value.length; n++) {
                byte[] cut = Arrays.copyOf(value, n);
                assertThrows(MalformedEntryException.class, () -> MemberEntry.decode(cut, ring), "prefix " + n);
                assertThrows(MalformedEntryException.class, () -> MemberEntry.decode(cut, null), "prefix " + n);
            }
            for (int bit = 0; bit < value.length * 8; bit++) {
                byte[] flipped = value.clone();
                flipped[bit / 8] ^= (byte) (1 << (bit % 8));
                assertThrows(MalformedEntryException.class, () -> MemberEntry.decode(flipped, ring), "bit " + bit);
            }
            byte[] longer = Arrays.copyOf(value, value.length + 1);
            assertThrows(MalformedEntryException.class, () -> MemberEntry.decode(longer, ring));
            // a trailing byte behind a valid checksum: malformed, or under a ring unauthenticated (the MAC is
            // checked before the fields are parsed, and it no longer covers what it did)
            Class<? extends RuntimeException> expected = ring == null ? MalformedEntryException.class
                    : UnauthenticatedPeerException.class;
            assertThrows(expected, () -> MemberEntry.decode(withCrc(longer), ring));
        }
    }

    @Test
    void randomBytesAreRefusedWithTypedExceptionsOnly() {
        Random random = new Random(42);
        for (int i = 0; i < 2000; i++) {
            byte[] junk = new byte[random.nextInt(200)];
            random.nextBytes(junk);
            byte[] value = random.nextBoolean() ? withCrc(junk) : junk;
            for (DeploymentKeyRing ring : new DeploymentKeyRing[] {null, RING}) {
                try {
                    MemberEntry.decode(value, ring);
                } catch (MalformedEntryException | UnauthenticatedPeerException expected) {
                    continue;
                }
                throw new AssertionError("random bytes decoded: " + Arrays.toString(value));
            }
        }
    }

    @Test
    void oversizedValuesAreRefusedBeforeAnythingIsRead() {
        byte[] mib = new byte[1 << 20];
        var e = assertThrows(MalformedEntryException.class, () -> MemberEntry.decode(mib, RING));
        assertTrue(e.getMessage().contains("oversized") && e.getMessage().contains("1048576"), e.getMessage());
        byte[] justOver = new byte[DirectoryLimits.MAX_VALUE_BYTES + 1];
        assertThrows(MalformedEntryException.class, () -> MemberEntry.decode(justOver, null));
    }

    @Test
    void fieldsAreCheckedWhereAnEntryIsMade() {
        assertThrows(IllegalArgumentException.class, () -> new MemberEntry("a/b", 1, new byte[1]));
        assertThrows(IllegalArgumentException.class, () -> new MemberEntry("", 1, new byte[1]));
        assertThrows(IllegalArgumentException.class, () -> new MemberEntry("m", 0, new byte[1]));
        assertThrows(IllegalArgumentException.class, () -> new MemberEntry("m", -4, new byte[1]));
        assertThrows(IllegalArgumentException.class, () -> new MemberEntry("m", 1, new byte[0]));
        var e = assertThrows(IllegalArgumentException.class,
                () -> new MemberEntry("m", 1, new byte[DirectoryLimits.MAX_VALUE_BYTES]));
        assertTrue(e.getMessage().contains("too large"), e.getMessage());
        assertThrows(NullPointerException.class, () -> new MemberEntry(null, 1, new byte[1]));
        assertThrows(NullPointerException.class, () -> new MemberEntry("m", 1, null));
        assertThrows(NullPointerException.class, () -> MemberEntry.decode(null, RING));
        byte[] descriptor = DESCRIPTOR.encode();
        MemberEntry entry = new MemberEntry("m", 1, descriptor);
        descriptor[0] ^= 1;
        assertEquals(DESCRIPTOR, entry.peerDescriptor(), "the descriptor is copied in");
        entry.descriptor()[0] ^= 1;
        assertEquals(DESCRIPTOR, entry.peerDescriptor(), "and out");
    }

    @Test
    void aValidEnvelopeAroundAForeignIdOrANegativeEpochIsMalformed() {
        byte[] value = MemberEntry.of("m", 7, DESCRIPTOR).encode(null);
        byte[] badId = value.clone();
        badId[9] = '/';
        var e = assertThrows(MalformedEntryException.class, () -> MemberEntry.decode(withCrc(badId), null));
        assertTrue(e.getMessage().contains("member id"), e.getMessage());
        byte[] negative = value.clone();
        ByteBuffer.wrap(negative).order(ByteOrder.LITTLE_ENDIAN).putLong(10, -7);
        e = assertThrows(MalformedEntryException.class, () -> MemberEntry.decode(withCrc(negative), null));
        assertTrue(e.getMessage().contains("epoch"), e.getMessage());
    }

    /** {@code value} with its last four bytes replaced by the CRC-32C of the rest. */
    static byte[] withCrc(byte[] value) {
        if (value.length < 4) {
            return value;
        }
        CRC32C crc = new CRC32C();
        crc.update(value, 0, value.length - 4);
        byte[] fixed = value.clone();
        ByteBuffer.wrap(fixed).order(ByteOrder.LITTLE_ENDIAN).putInt(value.length - 4, (int) crc.getValue());
        return fixed;
    }

    private static void assertReason(UnauthenticatedPeerException.Reason reason, byte[] value, DeploymentKeyRing ring) {
        var e = assertThrows(UnauthenticatedPeerException.class, () -> MemberEntry.decode(value, ring));
        assertEquals(reason, e.reason(), e.getMessage());
    }
}
