package io.blockxfer.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class PeerDescriptorTest {

    private static final PeerDescriptor SAMPLE = new PeerDescriptor("ucx", "e66978b6d0f4f4e6", 0x7f00_0000_1000L, 20_000,
            262_144, new byte[] {1, 2, 3, 4, 5});

    @Test
    void roundTripsThroughItsEncoding() {
        byte[] blob = SAMPLE.encode();
        PeerDescriptor back = PeerDescriptor.decode(blob);
        assertEquals(SAMPLE, back);
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5}, back.metadata());
        assertEquals(SAMPLE.hashCode(), back.hashCode());
    }

    @Test
    void everyMalformedBlobIsTheTypedException() {
        byte[] good = SAMPLE.encode();
        Random random = new Random(2026);
        int rejected = 0;
        for (int i = 0; i < 10_000; i++) {
            byte[] blob = switch (i % 6) {
                case 0 -> Arrays.copyOf(good, random.nextInt(good.length));
                case 1 -> {
                    byte[] b = good.clone();
                    b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
                    yield b;
                }
                case 2 -> {
                    byte[] b = new byte[random.nextInt(200)];
                    random.nextBytes(b);
                    yield b;
                }
                case 3 -> Arrays.copyOf(good, good.length + 1 + random.nextInt(16));
                case 4 -> withValidChecksum(mutateFields(good, random));
                default -> {
                    byte[] b = good.clone();
                    for (int k = 0; k < 1 + random.nextInt(6); k++) {
                        b[random.nextInt(b.length)] = (byte) random.nextInt(256);
                    }
                    yield b;
                }
            };
            try {
                PeerDescriptor d = PeerDescriptor.decode(blob);
                assertEquals(d, PeerDescriptor.decode(d.encode()), "a decoded blob must re-encode to itself");
            } catch (MalformedPeerDescriptorException expected) {
                rejected++;
            } catch (RuntimeException e) {
                fail("blob " + i + " (" + Arrays.toString(blob) + ") raised " + e, e);
            }
        }
        assertTrue(rejected > 9_000, "only " + rejected + " of 10000 malformed blobs rejected");
    }

    /** Rewrites the fixed fields with random values, so that the checksum is valid but the fields are not. */
    private static byte[] mutateFields(byte[] good, Random random) {
        byte[] b = good.clone();
        ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        int nameLen = b[8];
        int fpLen = b[9 + nameLen];
        int fixed = 10 + nameLen + fpLen;
        switch (random.nextInt(5)) {
            case 0 -> buf.putLong(fixed, random.nextLong());
            case 1 -> buf.putInt(fixed + 8, random.nextInt());
            case 2 -> buf.putLong(fixed + 12, random.nextLong());
            case 3 -> buf.putInt(fixed + 20, random.nextInt());
            default -> b[8] = (byte) random.nextInt(256);
        }
        return b;
    }

    private static byte[] withValidChecksum(byte[] b) {
        CRC32C crc = new CRC32C();
        crc.update(b, 0, b.length - 4);
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(b.length - 4, (int) crc.getValue());
        return b;
    }

    @Test
    void namesWhatIsWrong() {
        byte[] good = SAMPLE.encode();
        assertMessage(Arrays.copyOf(good, 10), "truncated");
        byte[] magic = good.clone();
        magic[0] = 'X';
        assertMessage(magic, "magic");
        byte[] version = good.clone();
        version[4] = 9;
        assertMessage(version, "version 9");
        assertMessage(Arrays.copyOf(good, good.length + 1), "does not match");
        byte[] crc = good.clone();
        crc[crc.length - 1] ^= 1;
        assertMessage(crc, "checksum");
        assertMessage(new byte[PeerDescriptor.MAX_METADATA_BYTES + 1000], "oversized");
        byte[] negative = withValidChecksum(good.clone());
        ByteBuffer.wrap(negative).order(ByteOrder.LITTLE_ENDIAN).putInt(8 + 1 + 3 + 1 + 16 + 8, -4);
        assertMessage(withValidChecksum(negative), "block count must be positive");
    }

    private static void assertMessage(byte[] blob, String expected) {
        var e = assertThrows(MalformedPeerDescriptorException.class, () -> PeerDescriptor.decode(blob));
        assertTrue(e.getMessage().contains(expected), "'" + e.getMessage() + "' should contain '" + expected + "'");
    }

    @Test
    void constructorRejectsOutOfRangeFields() {
        byte[] m = new byte[0];
        assertThrows(IllegalArgumentException.class, () -> new PeerDescriptor("", "", 0, 1, 1, m));
        assertThrows(IllegalArgumentException.class, () -> new PeerDescriptor("UCX", "", 0, 1, 1, m));
        assertThrows(IllegalArgumentException.class, () -> new PeerDescriptor("ucx", "XYZ", 0, 1, 1, m));
        assertThrows(IllegalArgumentException.class, () -> new PeerDescriptor("ucx", "", -1, 1, 1, m));
        assertThrows(IllegalArgumentException.class, () -> new PeerDescriptor("ucx", "", 0, 0, 1, m));
        assertThrows(IllegalArgumentException.class, () -> new PeerDescriptor("ucx", "", 0, 1, 0, m));
        assertThrows(IllegalArgumentException.class, () -> new PeerDescriptor("ucx", "", 0, Integer.MAX_VALUE,
                Long.MAX_VALUE / 2, m));
        assertThrows(IllegalArgumentException.class, () -> new PeerDescriptor("ucx", "", Long.MAX_VALUE - 10, 2, 64, m));
        assertThrows(IllegalArgumentException.class,
                () -> new PeerDescriptor("ucx", "", 0, 1, 1, new byte[PeerDescriptor.MAX_METADATA_BYTES + 1]));
        assertThrows(NullPointerException.class, () -> new PeerDescriptor("ucx", "", 0, 1, 1, null));
    }

    @Test
    void metadataIsCopiedInAndOut() {
        byte[] m = {9, 9};
        PeerDescriptor d = new PeerDescriptor("loopback", "", 0, 1, 1, m);
        m[0] = 0;
        assertEquals(9, d.metadata()[0]);
        d.metadata()[1] = 0;
        assertEquals(9, d.metadata()[1]);
    }
}
