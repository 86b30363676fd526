package io.blockxfer.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.tck.InJvmHarness;
import io.blockxfer.tck.TargetPeer;
import io.blockxfer.tck.TwoProcessHarness;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.IncompatiblePeerException;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.function.Function;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Descriptors of UCX-allocated memory that lie consistently (checksums recomputed), which the
 * backend once accepted and then wrote past the target's memory: a doubled region (registered
 * length and block count alike), a neighbouring segment id, a shifted owner address. Each is
 * refused with {@link IncompatiblePeerException} naming the packed rkey or the region, registers
 * nothing, and the
 * genuine descriptor still works, for a SysV and a posix region in this JVM and a SysV region in
 * another process.
 */
class UcxLyingDescriptorTest {

    private static final int BLOCKS = 16;
    private static final long BLOCK = 4096;
    private static final int FIXED = 4 + 2 + 2 + 8 + 8;

    @BeforeEach
    void ucx() {
        UcxTestSupport.requireUcx();
    }

    private static TransportConfig config() {
        return TransportConfig.builder(RegionSpec.allocate(BLOCKS, BLOCK)).build();
    }

    private static byte[] rechecksummed(byte[] m) {
        CRC32C crc = new CRC32C();
        crc.update(m, 0, m.length - 4);
        ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN).putInt(m.length - 4, (int) crc.getValue());
        return m;
    }

    /** Where the shared-memory key (the last non-empty key of the packed rkey) starts. */
    private static int memoryKeyAt(byte[] m) {
        ByteBuffer b = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
        int keyAt = FIXED + 4 + b.getInt(FIXED) + 4;
        long mdMap = b.getLong(keyAt);
        int at = keyAt + 9;
        int found = -1;
        for (int md = 0; md < 64; md++) {
            if ((mdMap & (1L << md)) != 0) {
                if ((m[at] & 0xff) > 0) {
                    found = at + 1;
                }
                at += 1 + (m[at] & 0xff);
            }
        }
        assertTrue(found > 0, "the region has no shared-memory key");
        return found;
    }

    private static PeerDescriptor doubled(PeerDescriptor d) {
        byte[] m = d.metadata();
        ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN).putLong(16, 2 * BLOCKS * BLOCK);
        return new PeerDescriptor(d.backend(), d.fingerprint(), d.baseAddress(), 2 * d.numBlocks(), d.blockLength(),
                rechecksummed(m));
    }

    private static PeerDescriptor neighbourSegment(PeerDescriptor d) {
        byte[] m = d.metadata();
        int at = memoryKeyAt(m);
        ByteBuffer b = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
        if (BLOCKS * BLOCK != b.getLong(16) || (m[at - 1] & 0xff) == 12) {
            b.putInt(at, b.getInt(at) - 1); // SysV: the segment created just before the region's
        } else {
            b.putLong(at, b.getLong(at) + (1L << 30)); // posix: the next file descriptor of that process
        }
        return new PeerDescriptor(d.backend(), d.fingerprint(), d.baseAddress(), d.numBlocks(), d.blockLength(),
                rechecksummed(m));
    }

    private static PeerDescriptor shiftedOwner(PeerDescriptor d) {
        byte[] m = d.metadata();
        int at = memoryKeyAt(m);
        int ownerAt = (m[at - 1] & 0xff) == 12 ? at + 4 : at + 8;
        ByteBuffer b = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(ownerAt, b.getLong(ownerAt) - 8 * BLOCK);
        return new PeerDescriptor(d.backend(), d.fingerprint(), d.baseAddress(), d.numBlocks(), d.blockLength(),
                rechecksummed(m));
    }

    private static void refusedThenGenuineWorks(DataTransport initiator, PeerDescriptor genuine) {
        List<Function<PeerDescriptor, PeerDescriptor>> lies = List.of(UcxLyingDescriptorTest::doubled,
                UcxLyingDescriptorTest::neighbourSegment, UcxLyingDescriptorTest::shiftedOwner);
        int k = 0;
        for (Function<PeerDescriptor, PeerDescriptor> lie : lies) {
            String peer = "liar-" + k++;
            PeerDescriptor d = lie.apply(genuine);
            IncompatiblePeerException e = assertThrows(IncompatiblePeerException.class, () -> initiator.addPeer(peer, d),
                    peer + " was accepted");
            // named by the field that contradicts the kernel: the key (another process), or the region
            // (a transport of this process, whose true region is known)
            assertTrue(e.getMessage().contains(peer) && (e.getMessage().contains("packed rkey")
                    || e.getMessage().contains("region does not cover")), e.getMessage());
            assertEquals(-1, initiator.writeBlocks(peer, new int[] {0}, new int[] {0}), peer + " left a registration");
        }
        initiator.addPeer("genuine", genuine);
        long id = initiator.writeBlocks("genuine", new int[] {1}, new int[] {BLOCKS - 1});
        long deadline = System.nanoTime() + 15_000_000_000L;
        PollResult r = PollResult.EMPTY;
        while (r.doneCount() + r.failedCount() == 0 && System.nanoTime() < deadline) {
            r = initiator.poll("genuine");
        }
        assertEquals(1, r.doneCount(), "the genuine descriptor after the lies: " + r);
        assertEquals(id, r.doneId(0));
    }

    @Test
    void liesAboutASysvRegionInThisJvmAreRefused() {
        try (DataTransport initiator = new UcxProvider().open(config());
                DataTransport target = new UcxProvider().open(config())) {
            refusedThenGenuineWorks(initiator, target.localDescriptor());
        }
    }

    @Test
    void liesAboutAPosixRegionInThisJvmAreRefused() {
        TransportConfig posix = config().toBuilder().option(UcxOptions.CONFIG_PREFIX + "ALLOC_PRIO", "md:posix").build();
        try (DataTransport initiator = new UcxProvider().open(config());
                DataTransport target = new UcxProvider().open(posix)) {
            refusedThenGenuineWorks(initiator, target.localDescriptor());
        }
    }

    @Test
    void liesAboutARegionInAnotherProcessAreRefused() {
        TwoProcessHarness remote = TwoProcessHarness.of(InJvmHarness.of(UcxProvider.NAME))
                .withJvmArgs(List.of("-Djava.io.tmpdir=" + ChildTemp.directory()));
        try (DataTransport initiator = new UcxProvider().open(config());
                TargetPeer target = remote.openTarget(config())) {
            refusedThenGenuineWorks(initiator, target.descriptor());
        }
    }
}
