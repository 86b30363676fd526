package io.blockxfer.ucx.internal;

/**
 * Sanity checks of UCX 1.18's own packed formats, done before the bytes reach UCX: its parsers
 * take no length and trust every field ({@code ucp_ep_rkey_unpack} walks a memory-domain bitmap and
 * length-prefixed keys; {@code ucp_ep_create} aborts the process on an unknown address version).
 * These checks catch structural damage a checksum would not explain; they do not authenticate.
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class PackedFormats {

    /** {@code UCS_MEMORY_TYPE_HOST}: the only memory type this backend registers. */
    private static final int HOST_MEMORY = 0;
    /** {@code UCP_OBJECT_VERSION_V2}, the newest worker address version UCX 1.18 knows. */
    private static final int MAX_ADDRESS_VERSION = 1;

    private PackedFormats() {
    }

    /**
     * The problem with a packed remote key, or null: {@code u64 md_map, u8 mem_type}, then for each
     * bit of {@code md_map} a {@code u8} length and that many bytes; a trailer may follow.
     */
    static String rkeyProblem(byte[] rkey) {
        if (rkey.length < 9) {
            return "packed rkey of " + rkey.length + " bytes is shorter than its 9-byte header";
        }
        long mdMap = 0;
        for (int i = 7; i >= 0; i--) {
            mdMap = (mdMap << 8) | (rkey[i] & 0xffL);
        }
        if (mdMap == 0) {
            return "packed rkey names no memory domain";
        }
        int memType = rkey[8] & 0xff;
        if (memType != HOST_MEMORY) {
            return "packed rkey has memory type " + memType + ", expected host memory (0)";
        }
        int at = 9;
        for (int md = 0; md < 64; md++) {
            if ((mdMap & (1L << md)) == 0) {
                continue;
            }
            if (at >= rkey.length) {
                return "packed rkey ends before the key of memory domain " + md;
            }
            int size = rkey[at] & 0xff;
            at += 1 + size;
            if (at > rkey.length) {
                return "packed rkey key of memory domain " + md + " (" + size + " bytes) overruns its "
                        + rkey.length + " bytes";
            }
        }
        return null;
    }

    /** The problem with a packed worker address, or null: a known version in its first byte. */
    static String addressProblem(byte[] address) {
        if (address.length < 2) {
            return "worker address of " + address.length + " bytes is too short";
        }
        int version = address[0] & 0x0f;
        if (version > MAX_ADDRESS_VERSION) {
            return "worker address has unknown version " + version;
        }
        return null;
    }
}
