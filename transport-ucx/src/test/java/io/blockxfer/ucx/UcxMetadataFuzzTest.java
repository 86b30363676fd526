package io.blockxfer.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.MalformedPeerDescriptorException;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.TransportException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Garbled or truncated UCX metadata from a real transport, offered to a real transport: a typed
 * error every time, nothing registered, no native crash; the genuine metadata still works after.
 */
class UcxMetadataFuzzTest {

    private static final int FIXED = 4 + 2 + 2 + 8 + 8;

    @BeforeEach
    void ucx() {
        UcxTestSupport.requireUcx();
    }

    private static TransportConfig config() {
        return TransportConfig.builder(RegionSpec.allocate(16, 4096)).build();
    }

    private static PeerDescriptor withMetadata(PeerDescriptor d, byte[] metadata) {
        return new PeerDescriptor(d.backend(), d.fingerprint(), d.baseAddress(), d.numBlocks(), d.blockLength(),
                metadata);
    }

    /** Rewrites the checksum, so the garbling reaches the structural checks. */
    private static byte[] rechecksummed(byte[] metadata) {
        byte[] b = metadata.clone();
        CRC32C crc = new CRC32C();
        crc.update(b, 0, b.length - 4);
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(b.length - 4, (int) crc.getValue());
        return b;
    }

    @Test
    void garbledMetadataIsATypedErrorAndRegistersNothing() {
        try (DataTransport initiator = new UcxProvider().open(config());
                DataTransport target = new UcxProvider().open(config())) {
            PeerDescriptor d = target.localDescriptor();
            byte[] m = d.metadata();
            ByteBuffer view = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
            int addressLength = view.getInt(FIXED);
            int rkeyAt = FIXED + 4 + addressLength;
            List<byte[]> garbled = new ArrayList<>();
            for (int i = 0; i < m.length; i++) {
                byte[] b = m.clone();
                b[i] ^= (byte) 0xff;
                garbled.add(b); // checksum catches it
            }
            for (int n = 0; n < m.length; n++) {
                garbled.add(Arrays.copyOf(m, n));
            }
            byte[] badVersion = m.clone();
            badVersion[FIXED + 4] = (byte) 0x0f; // worker address version 15
            garbled.add(rechecksummed(badVersion));
            byte[] noDomains = m.clone();
            Arrays.fill(noDomains, rkeyAt + 4, rkeyAt + 12, (byte) 0); // md_map = 0
            garbled.add(rechecksummed(noDomains));
            byte[] allDomains = m.clone();
            Arrays.fill(allDomains, rkeyAt + 4, rkeyAt + 12, (byte) 0xff); // 64 domains: keys overrun
            garbled.add(rechecksummed(allDomains));
            byte[] deviceMemory = m.clone();
            deviceMemory[rkeyAt + 12] = 1; // memory type: not host
            garbled.add(rechecksummed(deviceMemory));
            int k = 0;
            for (byte[] g : garbled) {
                String peer = "garbled-" + k++;
                try {
                    initiator.addPeer(peer, withMetadata(d, g));
                    throw new AssertionError(peer + " was registered");
                } catch (MalformedPeerDescriptorException expected) {
                    assertTrue(expected.getMessage().contains(peer), expected.getMessage());
                }
                assertEquals(DataTransport.NOT_SUBMITTED, initiator.writeBlocks(peer, new int[] {0}, new int[] {0}),
                        peer + " left a registration");
            }
            initiator.addPeer("good", d);
            long id = initiator.writeBlocks("good", new int[] {1}, new int[] {2});
            long deadline = System.nanoTime() + 10_000_000_000L;
            PollResult r = PollResult.EMPTY;
            while (r.doneCount() + r.failedCount() == 0 && System.nanoTime() < deadline) {
                r = initiator.poll("good");
            }
            assertEquals(1, r.doneCount(), "the genuine metadata after the garbled ones: " + r);
            assertEquals(id, r.doneId(0));
        }
    }

    @Test
    void aDescriptorClaimingMoreThanTheRegisteredMemoryIsRejectedBeforeUcx() {
        try (DataTransport initiator = new UcxProvider().open(config());
                DataTransport target = new UcxProvider().open(config())) {
            PeerDescriptor d = target.localDescriptor();
            PeerDescriptor more = new PeerDescriptor(d.backend(), d.fingerprint(), d.baseAddress(), d.numBlocks() + 1,
                    d.blockLength(), d.metadata());
            try {
                initiator.addPeer("liar", more);
                throw new AssertionError("accepted " + more);
            } catch (TransportException expected) {
                assertTrue(expected.getMessage().contains("outside"), expected.getMessage());
            }
            assertEquals(DataTransport.NOT_SUBMITTED, initiator.writeBlocks("liar", new int[] {0}, new int[] {16}));
        }
    }
}
