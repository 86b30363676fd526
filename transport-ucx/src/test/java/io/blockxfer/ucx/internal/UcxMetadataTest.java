package io.blockxfer.ucx.internal;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.IncompatiblePeerException;
import io.blockxfer.transport.MalformedPeerDescriptorException;
import io.blockxfer.transport.PeerDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The metadata codec against garbled, truncated and lying input; no native code. */
class UcxMetadataTest {

    private static final long BASE = 0x7f00_0000_0000L;
    private static final long LENGTH = 64 * 4096;

    /** A worker address and the key of a SysV region, as UCX 1.18.1 packed them. */
    static final byte[] ADDRESS = UcxFormatFixtures.ADDRESS_V1;
    static final byte[] RKEY = UcxFormatFixtures.RKEY_SYSV;

    static byte[] rkey(long mdMap, int memType, byte[]... keys) {
        ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(mdMap).put((byte) memType);
        for (byte[] k : keys) {
            b.put((byte) k.length).put(k);
        }
        return Arrays.copyOf(b.array(), b.position());
    }

    private static UcxMetadata good() {
        return new UcxMetadata(BASE, LENGTH, ADDRESS, RKEY);
    }

    private static void malformed(byte[] bytes, String what) {
        try {
            UcxMetadata.decode("p", bytes);
            fail(what + " was accepted");
        } catch (MalformedPeerDescriptorException expected) {
            assertTrue(expected.getMessage().contains("peer 'p'"), expected.getMessage());
        } catch (RuntimeException e) {
            throw new AssertionError(what + " threw " + e, e);
        }
    }

    /** The bytes of metadata with the given fields and a correct checksum, bypassing the constructor. */
    private static byte[] withChecksum(long base, long length, byte[] address, byte[] rkey) {
        return new UcxMetadata(base, length, address, rkey).encode();
    }

    @Test
    void roundTrip() {
        UcxMetadata m = good();
        UcxMetadata back = UcxMetadata.decode("p", m.encode());
        assertEquals(m, back);
        assertEquals(BASE, back.memoryAddress());
        assertEquals(LENGTH, back.memoryLength());
        assertTrue(Arrays.equals(RKEY, back.rkey()) && Arrays.equals(ADDRESS, back.workerAddress()));
    }

    @Test
    void thisBuildSaysItTakesNotificationBundlesAndAnOlderBuildsMetadataDoesNot() {
        UcxMetadata ours = UcxMetadata.decode("p", good().encode());
        assertTrue(ours.takesNotificationBundles());
        assertEquals(UcxMetadata.FLAG_NOTIFICATION_BUNDLES, good().encode()[6], "the flag on the wire");
        UcxMetadata older = UcxMetadata.decode("p", good().withoutNotificationBundles().encode());
        assertFalse(older.takesNotificationBundles(), "metadata without the flag: one frame a message");
        assertEquals(0, good().withoutNotificationBundles().encode()[6]);
        assertNotEquals(ours, older);
    }

    @Test
    void aListenerRoundTripsAndIsCheckedLikeTheRest() {
        UcxMetadata.Listener at = new UcxMetadata.Listener(7800, new byte[] {(byte) 198, 18, 0, 5});
        UcxMetadata m = new UcxMetadata(BASE, LENGTH, ADDRESS, RKEY, at);
        UcxMetadata back = UcxMetadata.decode("p", m.encode());
        assertEquals(m, back);
        assertEquals(at, back.listener());
        assertEquals("198.18.0.5:7800", at.toString());
        UcxMetadata anywhere = UcxMetadata.decode("p", new UcxMetadata(BASE, LENGTH, ADDRESS, RKEY,
                new UcxMetadata.Listener(1, new byte[0])).encode());
        assertTrue(anywhere.listener() != null && anywhere.listener().everyInterface());
        assertEquals(null, good().listener(), "metadata without the flag has no listener");
        byte[] bytes = m.encode();
        for (int n = 0; n < bytes.length; n++) {
            malformed(Arrays.copyOf(bytes, n), "listener metadata truncated to " + n);
        }
        for (int i = 0; i < bytes.length; i++) {
            byte[] b = bytes.clone();
            b[i] ^= 0x10;
            malformed(b, "listener metadata with byte " + i + " flipped");
        }
        byte[] plain = good().encode();
        byte[] body = Arrays.copyOf(plain, plain.length - 4);
        body[6] = (byte) UcxMetadata.FLAG_LISTENER;
        malformed(reframed(body, new byte[] {0, 0, 0}), "listener at port 0");
        malformed(reframed(body, new byte[] {1, 0, 5, 1, 2, 3, 4, 5}), "a 5-byte listener address");
        malformed(reframed(body, new byte[] {1, 0, 4, 1, 2}), "a listener address cut short");
        malformed(reframed(body, new byte[] {1, 0}), "a listener cut short");
        malformed(reframed(body, new byte[] {1, 0, 0, 9}), "a byte after the listener");
        body[6] = 4;
        malformed(reframed(body, new byte[0]), "an unknown flag");
        body[6] = 0;
        malformed(reframed(body, new byte[] {1, 0, 0}), "a listener without its flag");
        assertThrows(IllegalArgumentException.class, () -> new UcxMetadata.Listener(0, new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> new UcxMetadata.Listener(70000, new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> new UcxMetadata.Listener(1, new byte[3]));
    }

    /** {@code body} (metadata without its checksum), then {@code tail}, then a correct checksum. */
    private static byte[] reframed(byte[] body, byte[] tail) {
        ByteBuffer b = ByteBuffer.allocate(body.length + tail.length + 4).order(ByteOrder.LITTLE_ENDIAN);
        b.put(body).put(tail);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, body.length + tail.length);
        b.putInt((int) crc.getValue());
        return b.array();
    }

    @Test
    void everyFlippedBitIsCaught() {
        byte[] good = good().encode();
        for (int i = 0; i < good.length; i++) {
            for (int bit = 0; bit < 8; bit++) {
                byte[] b = good.clone();
                b[i] ^= (byte) (1 << bit);
                malformed(b, "bit " + bit + " of byte " + i + " flipped");
            }
        }
    }

    @Test
    void everyTruncationAndExtensionIsCaught() {
        byte[] good = good().encode();
        for (int n = 0; n < good.length; n++) {
            malformed(Arrays.copyOf(good, n), "truncated to " + n);
        }
        for (int extra = 1; extra < 40; extra++) {
            malformed(Arrays.copyOf(good, good.length + extra), "extended by " + extra);
        }
        byte[] doubled = Arrays.copyOf(good, good.length * 2);
        System.arraycopy(good, 0, doubled, good.length, good.length);
        malformed(doubled, "doubled");
    }

    @Test
    void randomBytesAreCaught() {
        Random r = new Random(3);
        byte[] good = good().encode();
        for (int i = 0; i < 5_000; i++) {
            byte[] b = new byte[r.nextInt(good.length * 2 + 1)];
            r.nextBytes(b);
            if (i % 2 == 0 && b.length >= 8) {
                System.arraycopy(good, 0, b, 0, 8); // right magic and version, garbage after
            }
            malformed(b, "random blob " + i);
        }
    }

    @Test
    void structurallyBrokenUcxBlobsAreCaughtEvenWithAValidChecksum() {
        malformed(withChecksum(BASE, LENGTH, new byte[] {0x05, 0, 1, 2}, RKEY), "unknown address version");
        malformed(withChecksum(BASE, LENGTH, new byte[] {0x01}, RKEY), "one-byte address");
        malformed(withChecksum(BASE, LENGTH, ADDRESS, rkey(0, 0)), "rkey without memory domains");
        malformed(withChecksum(BASE, LENGTH, ADDRESS, rkey(1, 3, new byte[] {1})), "rkey of device memory");
        byte[] overrun = rkey(0b11, 0, new byte[] {1, 2}, new byte[] {3});
        overrun[overrun.length - 2] = 9; // second key claims 9 bytes
        malformed(withChecksum(BASE, LENGTH, ADDRESS, overrun), "rkey key overrunning the blob");
        malformed(withChecksum(BASE, LENGTH, ADDRESS, Arrays.copyOf(RKEY, RKEY.length - 3)),
                "rkey truncated inside its keys");
        malformed(withChecksum(BASE, LENGTH, Arrays.copyOf(ADDRESS, ADDRESS.length - 1), RKEY),
                "worker address truncated inside its last device");
        malformed(withChecksum(0, LENGTH, ADDRESS, RKEY), "null memory address");
        malformed(withChecksum(BASE, 0, ADDRESS, RKEY), "empty memory");
        malformed(withChecksum(Long.MAX_VALUE - 10, LENGTH, ADDRESS, RKEY), "memory wrapping the address space");
        malformed(withChecksum(BASE, LENGTH, ADDRESS, Arrays.copyOf(RKEY, RKEY.length + 3)),
                "a device-memory trailer after the keys");
        assertDoesNotThrow(() -> UcxMetadata.decode("p", withChecksum(BASE, LENGTH, ADDRESS, RKEY)));
    }

    @Test
    void wrongMagicOrVersionNamesIt() {
        byte[] b = good().encode();
        b[4] = 2;
        CRC32C crc = new CRC32C();
        crc.update(b, 0, b.length - 4);
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(b.length - 4, (int) crc.getValue());
        var e = assertThrows(MalformedPeerDescriptorException.class, () -> UcxMetadata.decode("p", b));
        assertTrue(e.getMessage().contains("version 2"), e.getMessage());
    }

    @Test
    void aDescriptorBeyondTheRegisteredMemoryIsRejected() {
        UcxMetadata m = good();
        m.checkCovers("p", new PeerDescriptor("ucx", "", BASE, 64, 4096, new byte[0]));
        m.checkCovers("p", new PeerDescriptor("ucx", "", BASE + 4096, 63, 4096, new byte[0]));
        for (PeerDescriptor lie : new PeerDescriptor[] {
            new PeerDescriptor("ucx", "", BASE, 65, 4096, new byte[0]),
            new PeerDescriptor("ucx", "", BASE, 256, 4096, new byte[0]),
            new PeerDescriptor("ucx", "", BASE + 8 * 4096, 64, 4096, new byte[0]),
            new PeerDescriptor("ucx", "", BASE - 4096, 1, 4096, new byte[0]),
            new PeerDescriptor("ucx", "", BASE + LENGTH, 1, 4096, new byte[0]),
            new PeerDescriptor("ucx", "", 0, 1, 4096, new byte[0]),
        }) {
            var e = assertThrows(IncompatiblePeerException.class, () -> m.checkCovers("p", lie), lie.toString());
            assertTrue(e.getMessage().contains("outside"), e.getMessage());
        }
    }
}
