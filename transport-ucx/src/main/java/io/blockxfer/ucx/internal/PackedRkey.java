package io.blockxfer.ucx.internal;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A packed remote key of UCX 1.18 ({@code ucp_rkey_pack}), parsed with every length checked, and
 * checked against the peer's worker address, which decides how UCX unpacks each key: UCX's
 * unpacker ({@code ucp_ep_rkey_unpack_internal}, handed no length by JUCX) walks
 * {@code u64 md_map, u8 mem_type}, then for each bit of {@code md_map} a {@code u8} size and that
 * many bytes, and gives each key of a memory domain the peer's address makes reachable to the
 * transport component of that domain, which reads a fixed layout whatever the size byte says. So
 * the size must be what that transport packs:
 * <ul>
 *   <li>sysv: 12 bytes, {@code u32 shmid, u64 owner address} (the segment is attached and written
 *       at {@code attached + (remote address - owner address)}, without a length);</li>
 *   <li>posix: 24 bytes, {@code u64 segment id, u64 owner address, u64 length}, plus the
 *       namespace id or directory its segment id calls for;</li>
 *   <li>self, tcp, cma: no key (their unpackers read nothing).</li>
 * </ul>
 * Keys of transports this backend does not know are left to UCX. A sys-device trailer (device
 * memory) is refused, as is any memory type but host.
 *
 * <p><b>Thread safety:</b> immutable.
 */
final class PackedRkey {

    /** {@code UCS_MEMORY_TYPE_HOST}: the only memory type this backend registers. */
    static final int HOST_MEMORY = 0;
    /** Size of {@code uct_sysv_packed_rkey_t}. */
    static final int SYSV_KEY_BYTES = 12;
    /** Size of {@code uct_posix_packed_rkey_t}, before its namespace id or directory. */
    static final int POSIX_KEY_BYTES = 24;

    private final long mdMap;
    private final Map<Integer, byte[]> keys;

    private PackedRkey(long mdMap, Map<Integer, byte[]> keys) {
        this.mdMap = mdMap;
        this.keys = keys;
    }

    /** The memory domains the key covers. */
    long mdMap() {
        return mdMap;
    }

    /** The key of memory domain {@code md} (empty when it packed none). */
    byte[] key(int md) {
        byte[] k = keys.get(md);
        return k == null ? new byte[0] : k.clone();
    }

    /**
     * Parses {@code bytes}, the remote key of the peer whose worker address is {@code address}.
     *
     * @throws IllegalArgumentException naming the field that is out of place
     */
    static PackedRkey parse(byte[] bytes, UcpWorkerAddress address) {
        if (bytes.length < 9) {
            throw new IllegalArgumentException("packed rkey of " + bytes.length + " bytes is shorter than its 9-byte"
                    + " header");
        }
        long mdMap = UcpWorkerAddress.le64(bytes, 0);
        if (mdMap == 0) {
            throw new IllegalArgumentException("packed rkey names no memory domain");
        }
        int memType = bytes[8] & 0xff;
        if (memType != HOST_MEMORY) {
            throw new IllegalArgumentException("packed rkey has memory type " + memType + ", expected host memory (0)");
        }
        Map<Integer, byte[]> keys = new LinkedHashMap<>();
        int at = 9;
        for (int md = 0; md < 64; md++) {
            if ((mdMap & (1L << md)) == 0) {
                continue;
            }
            if (at >= bytes.length) {
                throw new IllegalArgumentException("packed rkey ends before the key of memory domain " + md);
            }
            int size = bytes[at] & 0xff;
            if (at + 1 + size > bytes.length) {
                throw new IllegalArgumentException("packed rkey: the key of memory domain " + md + " (" + size
                        + " bytes) overruns its " + bytes.length + " bytes");
            }
            byte[] key = Arrays.copyOfRange(bytes, at + 1, at + 1 + size);
            at += 1 + size;
            String problem = keyProblem(key, address.transportsOf(md));
            if (problem != null) {
                throw new IllegalArgumentException("packed rkey: the key of memory domain " + md + " " + problem);
            }
            keys.put(md, key);
        }
        if (at != bytes.length) {
            throw new IllegalArgumentException("packed rkey has " + (bytes.length - at) + " bytes after its last key"
                    + " (a device-memory trailer; this backend registers host memory)");
        }
        return new PackedRkey(mdMap, keys);
    }

    private static @Nullable String keyProblem(byte[] key, java.util.List<Integer> transports) {
        if (transports.isEmpty()) {
            return "belongs to no memory domain of the peer's worker address";
        }
        if (transports.contains(UcpWorkerAddress.SYSV)) {
            return key.length == SYSV_KEY_BYTES ? null : "(sysv) has " + key.length + " bytes; UCX reads "
                    + SYSV_KEY_BYTES;
        }
        if (transports.contains(UcpWorkerAddress.POSIX)) {
            if (key.length < POSIX_KEY_BYTES) {
                return "(posix) has " + key.length + " bytes; UCX reads at least " + POSIX_KEY_BYTES;
            }
            long segId = UcpWorkerAddress.le64(key, 0);
            int tail = key.length - POSIX_KEY_BYTES;
            boolean fits;
            if ((segId & PosixSegmentId.PROCFS) != 0) {
                fits = tail == 0 || tail == 8;
            } else if ((segId & PosixSegmentId.SHM_OPEN) != 0) {
                fits = tail == 0;
            } else {
                fits = tail > 1 && key[key.length - 1] == 0;
            }
            return fits ? null : "(posix) has a " + tail + "-byte tail that its segment id 0x"
                    + Long.toHexString(segId) + " does not call for";
        }
        boolean keyless = transports.stream().allMatch(t -> t == UcpWorkerAddress.SELF || t == UcpWorkerAddress.TCP
                || t == UcpWorkerAddress.CMA);
        if (keyless && key.length != 0) {
            return "has " + key.length + " bytes; its transports (" + transports.stream()
                    .map(UcpWorkerAddress::nameOf).toList() + ") pack none";
        }
        return null;
    }
}
