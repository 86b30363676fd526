package io.blockxfer.nixl.internal;

import io.blockxfer.transport.MalformedPeerDescriptorException;

/**
 * Structural checks of the two UCX objects inside a NIXL metadata blob that NIXL's UCX plugin hands
 * to UCX unchecked: the packed <b>worker address</b> (the UCX backend's connection blob, unpacked by
 * {@code ucp_ep_create} through {@code ucp_address_unpack}) and the packed <b>remote key</b> of each
 * registered region (the descriptor's meta-info, unpacked by {@code ucp_ep_rkey_unpack}). UCX takes
 * neither length: it walks the bytes by the lengths and flags they contain, and stops on an
 * assertion ({@code abort()}) for an unknown address version or an out-of-range memory-domain
 * index. So every length, flag and count is walked here exactly as UCX 1.21 to 1.23 (the UCX
 * releases NIXL 1.0 to 1.5 bundle) would walk it, and the walk must end exactly at the last byte.
 *
 * <p>The worker address layout (UCX {@code src/ucp/wireup/address.c}): a header byte (4 bits
 * address version, V1 = 0 or V2 = 1; in V1 the other 4 bits are the flags, in V2 the release and a
 * second byte holds the flags: debug-info, worker UUID, client id, AM-only); the UUID (always in
 * V1, when flagged in V2), the client id, the worker name (length byte + bytes); then either
 * {@code 0xff} (no devices) or a list of devices, each: the memory-domain index byte (bit 7 =
 * device without transports; in V2, value 127 = the index follows in a byte), the device address
 * length byte (bit 7 = last device, bit 6 = a path count byte follows, bit 5 = a system-device
 * byte follows, 5 bits of length; in V2, 31 = the length follows in a byte), the device address;
 * then, unless the device is empty, its transports, each: a 2-byte name checksum, the interface
 * attributes (16 bytes in V1, 8 in V2), the interface address length byte (bit 7 = last
 * transport, bit 6 = endpoint addresses follow, 6 bits of length; in V2, 63 = the length follows),
 * the interface address, and the endpoint addresses (length byte, address, lane byte whose bit 7
 * marks the last). Unified mode ({@code UCX_UNIFIED_MODE=y}, which packs no lengths at all) is not
 * walkable from outside and is refused.
 *
 * <p>The remote key layout (UCX {@code src/ucp/core/ucp_rkey.c}): a 64-bit memory-domain map, a
 * memory-type byte, for every bit of the map a length byte and that many bytes of the transport's
 * key, then (for a non-empty map) a system-device byte. Keys of device memory (a known system
 * device) go on with per-lane distances that UCX reads with no bound at all; they are refused.
 *
 * <p>What this cannot check is what the bytes mean: the transport addresses (a TCP port, a shared
 * memory segment id, a process id for CMA) and the transport keys are taken as given by UCX.
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class UcxWireFormat {

    /** {@code UCP_MAX_RESOURCES}: transports an address may list. */
    static final int MAX_RESOURCES = 128;
    /** {@code UCP_MAX_LANES}: endpoint addresses per transport. */
    static final int MAX_LANES = 64;
    /** {@code UCS_MEMORY_TYPE_HOST}. */
    static final int MEMORY_TYPE_HOST = 0;
    /** {@code UCS_MEMORY_TYPE_LAST} of UCX 1.21-1.23: types at or above it index past UCX's tables. */
    static final int MEMORY_TYPE_LAST = 8;

    private static final int VERSION_V1 = 0;
    private static final int VERSION_V2 = 1;
    private static final int FLAG_DEBUG_INFO = 1;
    private static final int FLAG_WORKER_UUID = 2;
    private static final int FLAG_CLIENT_ID = 4;
    private static final int FLAG_AM_ONLY = 8;
    private static final int NULL_RESOURCE = 0xff;
    private static final int LAST = 0x80;
    private static final int MD_EMPTY_DEV = 0x80;
    private static final int MD_MASK = 0x7f;
    private static final int DEV_NUM_PATHS = 0x40;
    private static final int DEV_SYS_DEVICE = 0x20;
    private static final int DEV_LEN_MASK = 0x1f;
    private static final int IFACE_HAS_EP = 0x40;
    private static final int IFACE_LEN_MASK = 0x3f;
    private static final int SYS_DEVICE_UNKNOWN = 0xff;

    private UcxWireFormat() {
    }

    /** A bounds-checked cursor; every read past the end is a malformed object. */
    private static final class Cursor {
        final byte[] b;
        final int end;
        final String what;
        int pos;

        Cursor(byte[] b, int offset, int length, String what) {
            this.b = b;
            this.pos = offset;
            this.end = offset + length;
            this.what = what;
        }

        int u8() {
            need(1);
            return b[pos++] & 0xff;
        }

        void skip(int n) {
            need(n);
            pos += n;
        }

        long u64() {
            need(8);
            long v = 0;
            for (int i = 7; i >= 0; i--) {
                v = (v << 8) | (b[pos + i] & 0xff);
            }
            pos += 8;
            return v;
        }

        float f32() {
            need(4);
            int v = (b[pos] & 0xff) | (b[pos + 1] & 0xff) << 8 | (b[pos + 2] & 0xff) << 16 | (b[pos + 3] & 0xff) << 24;
            pos += 4;
            return Float.intBitsToFloat(v);
        }

        void need(int n) {
            if (n < 0 || end - pos < n) {
                throw bad("needs " + n + " more byte(s) at offset " + pos + " of " + end);
            }
        }

        MalformedPeerDescriptorException bad(String why) {
            return new MalformedPeerDescriptorException("malformed " + what + ": " + why);
        }
    }

    /**
     * Walks a packed UCX worker address as {@code ucp_address_unpack} would.
     *
     * @throws MalformedPeerDescriptorException if UCX would read past its end, stop on an assertion,
     *     or leave bytes unread
     */
    static void checkWorkerAddress(byte[] blob, int offset, int length) {
        Cursor c = new Cursor(blob, offset, length, "UCX worker address in NIXL's UCX connection blob");
        int header = c.u8();
        int version = header & 0x0f;
        int flags;
        if (version == VERSION_V1) {
            flags = header >>> 4;
        } else if (version == VERSION_V2) {
            flags = c.u8();
        } else {
            // UCX: ucs_assertv_always(addr_version == UCP_OBJECT_VERSION_V2) -> abort()
            throw c.bad("address version " + version + " (UCX knows 0 = v1 and 1 = v2, and aborts on any other)");
        }
        if ((flags & ~(FLAG_DEBUG_INFO | FLAG_WORKER_UUID | FLAG_CLIENT_ID | FLAG_AM_ONLY)) != 0) {
            throw c.bad("unknown header flags 0x" + Integer.toHexString(flags));
        }
        if ((flags & FLAG_AM_ONLY) != 0) {
            throw c.bad("an AM-only address (no RMA lanes) cannot serve NIXL transfers");
        }
        if (version == VERSION_V1 || (flags & FLAG_WORKER_UUID) != 0) {
            c.skip(8); // worker UUID: v1 addresses always carry it for a worker-address unpack
        }
        if ((flags & FLAG_CLIENT_ID) != 0) {
            c.skip(8);
        }
        if ((flags & FLAG_DEBUG_INFO) != 0) {
            c.skip(c.u8()); // worker name
        }
        c.need(1);
        if ((c.b[c.pos] & 0xff) == NULL_RESOURCE) {
            c.skip(1);
            expectEnd(c);
            return;
        }
        int addresses = 0;
        boolean lastDevice;
        do {
            int md = c.u8();
            boolean emptyDevice = (md & MD_EMPTY_DEV) != 0;
            if (version != VERSION_V1 && (md & MD_MASK) == MD_MASK) {
                c.u8(); // extended md index
            }
            int devFlags = c.u8();
            lastDevice = (devFlags & LAST) != 0;
            int devAddrLength = devFlags & DEV_LEN_MASK;
            if (version != VERSION_V1 && devAddrLength == DEV_LEN_MASK) {
                devAddrLength = c.u8();
            }
            if ((devFlags & DEV_NUM_PATHS) != 0) {
                c.u8();
            }
            if ((devFlags & DEV_SYS_DEVICE) != 0) {
                c.u8();
            }
            c.skip(devAddrLength);
            boolean lastTransport = emptyDevice;
            while (!lastTransport) {
                if (++addresses > MAX_RESOURCES) {
                    throw c.bad("more than " + MAX_RESOURCES + " transport addresses");
                }
                c.skip(2); // transport name checksum
                if (version == VERSION_V1) {
                    c.f32(); // overhead
                    float bandwidth = c.f32();
                    c.f32(); // latency overhead
                    c.skip(4); // priority and capability flags
                    if (!(Float.isFinite(bandwidth) && bandwidth != 0f)) {
                        throw c.bad("transport bandwidth " + bandwidth);
                    }
                } else {
                    c.skip(8); // fp8 overhead, bandwidth, latency, priority, u16 segment size, u16 flags
                }
                int ifaceFlags = c.u8();
                lastTransport = (ifaceFlags & LAST) != 0;
                int ifaceAddrLength = ifaceFlags & IFACE_LEN_MASK;
                if (version != VERSION_V1 && ifaceAddrLength == IFACE_LEN_MASK) {
                    ifaceAddrLength = c.u8();
                }
                c.skip(ifaceAddrLength);
                boolean lastEp = (ifaceFlags & IFACE_HAS_EP) == 0;
                int eps = 0;
                while (!lastEp) {
                    if (++eps > MAX_LANES) {
                        throw c.bad("more than " + MAX_LANES + " endpoint addresses on one transport");
                    }
                    c.skip(c.u8());
                    lastEp = (c.u8() & LAST) != 0;
                }
            }
        } while (!lastDevice);
        expectEnd(c);
    }

    /**
     * Walks a packed UCX remote key as {@code ucp_ep_rkey_unpack} would, for memory of NIXL type
     * {@code nixlMemType} (0 = DRAM, which must be UCX host memory).
     *
     * @throws MalformedPeerDescriptorException if UCX would read past its end, abort on a
     *     memory-domain index, index past its memory-type tables, or leave bytes unread
     */
    static void checkRkey(byte[] blob, int offset, int length, int nixlMemType) {
        Cursor c = new Cursor(blob, offset, length, "UCX remote key of a registered region");
        long mdMap = c.u64(); // 64 bits: every index is below UCP_MAX_MDS (64), which UCX asserts
        int memType = c.u8();
        if (memType >= MEMORY_TYPE_LAST) {
            throw c.bad("memory type " + memType + " (UCX knows 0-" + (MEMORY_TYPE_LAST - 1) + ")");
        }
        if (nixlMemType == 0 && memType != MEMORY_TYPE_HOST) {
            throw c.bad("memory type " + memType + " for a DRAM region (host memory is 0)");
        }
        for (int bits = Long.bitCount(mdMap); bits > 0; bits--) {
            c.skip(c.u8()); // transport key of one memory domain
        }
        if (mdMap != 0) {
            int sysDev = c.u8() & 0x7f; // bit 7 is UCX's flush flag
            if (sysDev != (SYS_DEVICE_UNKNOWN & 0x7f)) {
                // a known system device (GPU memory) is followed by per-lane distances that UCX reads
                // without any bound (it assumes the list is complete); nothing here can check them
                throw c.bad("system device " + sysDev + ": keys of device memory carry an unbounded distance list;"
                        + " only host memory keys are accepted");
            }
        }
        expectEnd(c);
    }

    private static void expectEnd(Cursor c) {
        if (c.pos != c.end) {
            throw c.bad((c.end - c.pos) + " byte(s) left over after the last field (at offset " + c.pos + " of "
                    + c.end + ")");
        }
    }
}
