package io.blockxfer.ucx.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The worker address and remote key parsers against what UCX 1.18.1 packs, and against every kind
 * of damage to the fields UCX reads without a length; no native code.
 */
class UcpWorkerAddressTest {

    private static String refused(byte[] address) {
        try {
            UcpWorkerAddress.parse(address);
        } catch (IllegalArgumentException expected) {
            return expected.getMessage();
        }
        fail("accepted " + Arrays.toString(address));
        return null;
    }

    @Test
    void readsWhatUcxPacked() {
        UcpWorkerAddress v1 = UcpWorkerAddress.parse(UcxFormatFixtures.ADDRESS_V1);
        assertEquals(0, v1.version());
        assertEquals(List.of("self", "tcp", "sysv", "posix", "cma"), v1.entries().stream()
                .map(UcpWorkerAddress.Entry::tlName).toList());
        assertEquals(List.of(0, 1, 2, 3, 4), v1.entries().stream().map(UcpWorkerAddress.Entry::mdIndex).toList());
        UcpWorkerAddress v2 = UcpWorkerAddress.parse(UcxFormatFixtures.ADDRESS_V2);
        assertEquals(1, v2.version());
        assertEquals(v1.entries().stream().map(UcpWorkerAddress.Entry::tlName).toList(),
                v2.entries().stream().map(UcpWorkerAddress.Entry::tlName).toList());
        UcpWorkerAddress.Entry sysv = v1.entriesOf(UcpWorkerAddress.SYSV).get(0);
        assertEquals(8, sysv.device().length);
        assertEquals(0x530030, sysv.ifaceLong(0), "the sysv FIFO segment id");
        UcpWorkerAddress.Entry posix = v1.entriesOf(UcpWorkerAddress.POSIX).get(0);
        long segId = posix.ifaceLong(0);
        assertTrue((segId & PosixSegmentId.PROCFS) != 0 && (segId & PosixSegmentId.SHM_OPEN) != 0);
        assertEquals(0x36c9, PosixSegmentId.pid(segId));
        assertEquals(0x36c9, UcpWorkerAddress.le32(v1.entriesOf(UcpWorkerAddress.CMA).get(0).iface(), 0),
                "cma carries the same pid");
    }

    @Test
    void theTransportChecksumsAreUcxs() {
        assertEquals(0x538d, UcpWorkerAddress.SYSV, "crc16(sysv), as UCX computes it");
        assertEquals(0x19cf, UcpWorkerAddress.TCP);
    }

    @Test
    void everyTruncationAndExtensionIsRefused() {
        for (byte[] good : List.of(UcxFormatFixtures.ADDRESS_V1, UcxFormatFixtures.ADDRESS_V2)) {
            for (int n = 0; n < good.length; n++) {
                refused(Arrays.copyOf(good, n));
            }
            for (int extra = 1; extra < 20; extra++) {
                assertTrue(refused(Arrays.copyOf(good, good.length + extra)).contains("after its last device"));
            }
        }
    }

    @Test
    void fieldsUcxTrustsAreChecked() {
        byte[] a = UcxFormatFixtures.ADDRESS_V1.clone();
        a[0] = (byte) ((a[0] & 0xf0) | 2);
        assertTrue(refused(a).contains("version 2"));
        byte[] v2 = UcxFormatFixtures.ADDRESS_V2.clone();
        // first device's md index byte follows header(2) + uuid(8): make it the 127 escape + md 200
        byte[] bigMd = new byte[v2.length + 1];
        System.arraycopy(v2, 0, bigMd, 0, 10);
        bigMd[10] = 0x7f;
        bigMd[11] = (byte) 200;
        System.arraycopy(v2, 11, bigMd, 12, v2.length - 11);
        assertTrue(refused(bigMd).contains("memory domain 200"));
        byte[] noTransport = Arrays.copyOf(UcxFormatFixtures.ADDRESS_V1, 10);
        noTransport[9] = (byte) 0xff;
        assertTrue(refused(noTransport).contains("no transport"));
    }

    @Test
    void singleByteDamageIsRefusedOrParsesToTheSameLayout() {
        // a flipped byte either breaks the framing (refused) or changes a value inside a field;
        // what parses must still have every known transport at its proper lengths
        Random r = new Random(7);
        for (byte[] good : List.of(UcxFormatFixtures.ADDRESS_V1, UcxFormatFixtures.ADDRESS_V2)) {
            for (int i = 0; i < good.length; i++) {
                for (int k = 0; k < 8; k++) {
                    byte[] b = good.clone();
                    b[i] ^= (byte) (1 + r.nextInt(255));
                    try {
                        UcpWorkerAddress parsed = UcpWorkerAddress.parse(b);
                        for (UcpWorkerAddress.Entry e : parsed.entries()) {
                            if (e.tlChecksum() == UcpWorkerAddress.SYSV) {
                                assertEquals(8, e.iface().length);
                            }
                            assertTrue(e.mdIndex() < UcpWorkerAddress.MAX_MDS);
                        }
                    } catch (IllegalArgumentException expected) {
                        assertTrue(expected.getMessage().startsWith("worker address"), expected.getMessage());
                    }
                }
            }
        }
    }

    @Test
    void remoteKeysAreReadAgainstTheirAddress() {
        UcpWorkerAddress v1 = UcpWorkerAddress.parse(UcxFormatFixtures.ADDRESS_V1);
        PackedRkey sysv = PackedRkey.parse(UcxFormatFixtures.RKEY_SYSV, v1);
        assertEquals(0x17, sysv.mdMap());
        assertEquals(PackedRkey.SYSV_KEY_BYTES, sysv.key(2).length);
        assertEquals(0x530032, UcpWorkerAddress.le32(sysv.key(2), 0));
        UcpWorkerAddress posixAddress = UcpWorkerAddress.parse(UcxFormatFixtures.ADDRESS_POSIX_ALLOC);
        PackedRkey posix = PackedRkey.parse(UcxFormatFixtures.RKEY_POSIX, posixAddress);
        assertEquals(65536, UcpWorkerAddress.le64(posix.key(3), 16), "the posix key's length");
        PackedRkey caller = PackedRkey.parse(UcxFormatFixtures.RKEY_CALLER_MEMORY, v1);
        assertArrayEquals(new byte[0], caller.key(0));
    }

    private static String keyRefused(byte[] rkey, byte[] address) {
        UcpWorkerAddress a = UcpWorkerAddress.parse(address);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PackedRkey.parse(rkey, a));
        return e.getMessage();
    }

    @Test
    void aKeyOfTheWrongSizeForItsTransportIsRefused() {
        byte[] k = UcxFormatFixtures.RKEY_SYSV;
        // md 2 is sysv in the address: its key must be 12 bytes
        byte[] shorter = UcxMetadataTest.rkey(0x17, 0, new byte[0], new byte[0], new byte[8], new byte[0]);
        assertTrue(keyRefused(shorter, UcxFormatFixtures.ADDRESS_V1).contains("(sysv) has 8 bytes"));
        // a key for tcp (md 1), which packs none
        byte[] tcpKey = UcxMetadataTest.rkey(0x17, 0, new byte[0], new byte[4], Arrays.copyOfRange(k, 12, 24),
                new byte[0]);
        assertTrue(keyRefused(tcpKey, UcxFormatFixtures.ADDRESS_V1).contains("pack none"));
        // md 9 is in no device of the address
        byte[] unknownMd = UcxMetadataTest.rkey(1L << 9, 0, new byte[0]);
        assertTrue(keyRefused(unknownMd, UcxFormatFixtures.ADDRESS_V1).contains("no memory domain"));
        // a trailer (sys device and distances) after the keys
        assertTrue(keyRefused(Arrays.copyOf(k, k.length + 3), UcxFormatFixtures.ADDRESS_V1).contains("after its"));
        // device memory
        byte[] cuda = k.clone();
        cuda[8] = 1;
        assertTrue(keyRefused(cuda, UcxFormatFixtures.ADDRESS_V1).contains("memory type 1"));
        // posix key whose segment id asks for a directory that is not there
        byte[] p = UcxFormatFixtures.RKEY_POSIX.clone();
        p[9 + 3 + 7] &= 0x3f; // clear PROCFS and SHM_OPEN of the md 3 key's segment id
        assertTrue(keyRefused(p, UcxFormatFixtures.ADDRESS_POSIX_ALLOC).contains("tail"));
    }
}
