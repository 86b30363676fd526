package io.blockxfer.ucx.internal;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * A peer's region as this process maps it, for READs by plain copy: on one host UCX reaches a
 * peer's UCX-allocated region by attaching the shared-memory segment its remote key names, and
 * {@code ucp_rkey_ptr} tells where. A READ through UCX instead is software-emulated in the peer
 * error mode this backend uses (a get request goes into the peer's receive queue, and the peer's
 * progress thread copies the data back into this worker's queue in 8 KiB messages): it needs the
 * peer's CPU, and a peer SIGKILLed while writing one of those messages leaves a slot of this
 * worker's shared receive queue reserved and never filled, after which no message from any peer
 * is ever received again (UCX's shared-memory queue has no recovery), so every READ of every peer
 * stalls for good. Copying from the mapping needs neither queue.
 *
 * <p>UCX computes the address without bounds, so it is used only if this process's own mappings
 * ({@code /proc/self/maps}) confirm it: the mapping of the very segment the key names (a SysV id
 * or a posix file's inode) starts at {@code address - (base - owner address)} and covers the
 * region. {@link PeerMemoryCheck} has already tied that segment to the peer's region.
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class PeerMapping {

    private PeerMapping() {
    }

    /**
     * The peer's region of {@code size} bytes at {@code base}, which UCX says is mapped at
     * {@code address} in this process (0: not mapped), or null when it is not, or the address does
     * not check out.
     */
    @SuppressWarnings("restricted") // sizing a mapping confirmed by the kernel
    static @Nullable MemorySegment of(long address, UcxMetadata metadata, long base, long size) {
        if (address == 0 || size <= 0) {
            return null;
        }
        PackedRkey rkey = metadata.packedRkey();
        UcpWorkerAddress peer = metadata.address();
        for (int md = 0; md < 64; md++) {
            if ((rkey.mdMap() & (1L << md)) == 0) {
                continue;
            }
            java.util.List<Integer> transports = peer.transportsOf(md);
            byte[] key = rkey.key(md);
            long inode;
            long owner;
            long mapped;
            boolean sysv;
            if (transports.contains(UcpWorkerAddress.SYSV) && key.length == PackedRkey.SYSV_KEY_BYTES) {
                inode = UcpWorkerAddress.le32(key, 0);
                owner = UcpWorkerAddress.le64(key, 4);
                mapped = Long.MAX_VALUE;
                sysv = true;
            } else if (transports.contains(UcpWorkerAddress.POSIX) && key.length >= PackedRkey.POSIX_KEY_BYTES) {
                long segId = UcpWorkerAddress.le64(key, 0);
                if ((segId & (PosixSegmentId.PROCFS | PosixSegmentId.SHM_OPEN)) == 0) {
                    continue; // a segment in a configured directory: left to UCX
                }
                owner = UcpWorkerAddress.le64(key, 8);
                mapped = UcpWorkerAddress.le64(key, 16);
                inode = inode(PosixSegmentId.file(segId, "/dev/shm"));
                sysv = false;
                if (inode < 0) {
                    continue;
                }
            } else {
                continue;
            }
            long offset = base - owner;
            if (offset < 0 || size > mapped || offset > mapped - size) {
                continue;
            }
            long length;
            try {
                length = OwnerMappings.selfMappedLength(inode, address - offset, sysv);
            } catch (IOException | RuntimeException e) {
                return null;
            }
            if (length >= 0 && offset <= length && size <= length - offset) {
                return MemorySegment.ofAddress(address).reinterpret(size);
            }
        }
        return null;
    }

    private static long inode(Path file) {
        try {
            return ((Number) Files.getAttribute(file, "unix:ino")).longValue();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
