package io.blockxfer.ucx.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A packed UCP worker address of UCX 1.18 ({@code ucp_worker_get_address}), parsed with every
 * length checked against the bytes there are. UCX's own parser ({@code ucp_address_unpack}) takes
 * no length: it walks the bytes by the lengths and flags they contain, asserts the version (an
 * unknown one aborts the process) and indexes fixed-size arrays by the memory-domain index. So
 * every field UCX reads is checked here first, against the layout of {@code src/ucp/wireup/address.c}
 * in non-unified mode (UCX's default) with the worker address pack flags:
 *
 * <pre>
 * v1: u8 header (version 0 | flags &lt;&lt; 4), u64 uuid
 * v2: u8 (version 1 | release &lt;&lt; 4), u8 flags, [u64 uuid if flag 2]
 * both: [u64 client id if flag 4] [u8 n + n bytes of name if flag 1]
 * per device: u8 md index (v1: 5 bits + alloc/reg flags; v2: 7 bits, 127 = next byte) | 0x80 empty,
 *             u8 device address length (5 bits; v2: 31 = next byte) | 0x80 last | 0x40 paths | 0x20 sys,
 *             [u8 paths] [u8 sys device], device address
 *   per transport (unless empty): u16 name checksum, iface attributes (v1 16 bytes, v2 8),
 *             u8 iface address length (6 bits; v2: 63 = next byte) | 0x80 last | 0x40 ep addresses,
 *             iface address
 * </pre>
 *
 * For the transports this backend meets on one host or over TCP ({@code self, tcp, sysv, posix,
 * cma}), the device and iface addresses must also have the lengths their UCX 1.18 transports read
 * without checking. Endpoint addresses (never part of a worker address) and trailing bytes are
 * refused.
 *
 * <p><b>Thread safety:</b> immutable.
 */
final class UcpWorkerAddress {

    /** {@code UCP_MAX_MDS}: UCX indexes arrays of this size by the memory-domain index. */
    static final int MAX_MDS = 64;
    /** {@code UCP_MAX_RESOURCES}: the most transport entries UCX accepts. */
    static final int MAX_ENTRIES = 128;

    /** {@code ucs_crc16_string} of the transport names this backend knows. */
    static final int SELF = crc16("self");
    static final int TCP = crc16("tcp");
    static final int SYSV = crc16("sysv");
    static final int POSIX = crc16("posix");
    static final int CMA = crc16("cma");

    /** {@code UCT_IFACE_LOCAL_ADDR_FLAG_NS}: a shared-memory device address carries a namespace id. */
    private static final long LOCAL_ADDR_FLAG_NS = 1L << 63;

    /**
     * One transport of the peer: the memory domain it belongs to, its name checksum, its device and
     * iface addresses.
     *
     * @param mdIndex the peer's memory-domain index
     * @param tlChecksum {@code ucs_crc16_string} of the transport name
     * @param device the device address
     * @param iface the iface address
     */
    // arrays as components: an Entry is a parse result that is read, never compared or hashed
    // (nothing calls equals or hashCode on one) nor written
    @SuppressWarnings("ArrayRecordComponent")
    record Entry(int mdIndex, int tlChecksum, byte[] device, byte[] iface) {
        /** The transport's name where this backend knows it, else its checksum in hex. */
        String tlName() {
            return nameOf(tlChecksum);
        }

        /** The little-endian u64 at {@code offset} of the iface address. */
        long ifaceLong(int offset) {
            return le64(iface, offset);
        }

        /** The host id of a shared-memory device address (namespace flag included). */
        long hostId() {
            return le64(device, 0);
        }

        /** The namespace id of a shared-memory device address, or 0 when it has none. */
        long namespaceId() {
            return device.length >= 16 ? le64(device, 8) : 0;
        }
    }

    private final int version;
    private final long uuid;
    private final List<Entry> entries;

    private UcpWorkerAddress(int version, long uuid, List<Entry> entries) {
        this.version = version;
        this.uuid = uuid;
        this.entries = entries;
    }

    /** 0 for UCX's address version 1, 1 for version 2. */
    int version() {
        return version;
    }

    /** The worker's unique id (0 when a version-2 address carries none). */
    long uuid() {
        return uuid;
    }

    /** Every transport entry, in address order. */
    List<Entry> entries() {
        return entries;
    }

    /** The entries of transport {@code tlChecksum}. */
    List<Entry> entriesOf(int tlChecksum) {
        return entries.stream().filter(e -> e.tlChecksum == tlChecksum).toList();
    }

    /** The checksums of the transports in memory domain {@code mdIndex}. */
    List<Integer> transportsOf(int mdIndex) {
        return entries.stream().filter(e -> e.mdIndex == mdIndex).map(Entry::tlChecksum).distinct().toList();
    }

    /**
     * Parses {@code bytes}.
     *
     * @throws IllegalArgumentException naming the field that is out of place
     */
    static UcpWorkerAddress parse(byte[] bytes) {
        return new Parser(bytes).parse();
    }

    private static final class Parser {
        private final byte[] b;
        private int at;

        Parser(byte[] b) {
            this.b = b;
        }

        private void need(int n, String what) {
            if (n < 0 || at > b.length - n) {
                throw new IllegalArgumentException("worker address ends inside " + what + " (offset " + at + ", "
                        + b.length + " bytes)");
            }
        }

        private int u8(String what) {
            need(1, what);
            return b[at++] & 0xff;
        }

        private long u64(String what) {
            need(8, what);
            long v = le64(b, at);
            at += 8;
            return v;
        }

        private byte[] bytes(int n, String what) {
            need(n, what);
            byte[] v = Arrays.copyOfRange(b, at, at + n);
            at += n;
            return v;
        }

        UcpWorkerAddress parse() {
            int header = u8("the header");
            int version = header & 0x0f;
            if (version > 1) {
                throw new IllegalArgumentException("worker address has version " + version
                        + "; UCX 1.18 knows 0 (v1) and 1 (v2) and aborts the process on any other");
            }
            boolean v2 = version == 1;
            int flags = v2 ? u8("the header flags") : header >> 4;
            if ((flags & ~0x0f) != 0) {
                throw new IllegalArgumentException("worker address has unknown header flags 0x"
                        + Integer.toHexString(flags));
            }
            long uuid = 0;
            if (!v2 || (flags & 0x02) != 0) {
                uuid = u64("the worker uuid");
            }
            if ((flags & 0x04) != 0) {
                u64("the client id");
            }
            if ((flags & 0x01) != 0) {
                bytes(u8("the worker name length"), "the worker name");
            }
            need(1, "the first device");
            if ((b[at] & 0xff) == 0xff) {
                throw new IllegalArgumentException("worker address lists no transport");
            }
            List<Entry> entries = new ArrayList<>();
            boolean lastDevice = false;
            for (int device = 0; !lastDevice; device++) {
                String dev = "device " + device;
                int mdByte = u8(dev + " memory-domain index");
                boolean empty = (mdByte & 0x80) != 0;
                int md = mdByte & (v2 ? 0x7f : 0x1f);
                if (v2 && md == 0x7f) {
                    md = u8(dev + " extended memory-domain index");
                }
                int lenByte = u8(dev + " address length");
                lastDevice = (lenByte & 0x80) != 0;
                int devLength = lenByte & 0x1f;
                if (v2 && devLength == 0x1f) {
                    devLength = u8(dev + " extended address length");
                }
                if ((lenByte & 0x40) != 0) {
                    int paths = u8(dev + " path count");
                    if (paths == 0) {
                        throw new IllegalArgumentException("worker address " + dev + " has 0 paths");
                    }
                }
                if ((lenByte & 0x20) != 0) {
                    u8(dev + " system device");
                }
                byte[] devAddr = bytes(devLength, dev + " address");
                if (empty) {
                    // the last empty device carries the release version in its index
                    if (!lastDevice && devLength != 0) {
                        throw new IllegalArgumentException("worker address " + dev + " is empty but has an address");
                    }
                    continue;
                }
                if (md >= MAX_MDS) {
                    throw new IllegalArgumentException("worker address " + dev + " names memory domain " + md
                            + "; UCX indexes " + MAX_MDS + "-entry arrays by it");
                }
                boolean lastTl = false;
                for (int tl = 0; !lastTl; tl++) {
                    String where = dev + " transport " + tl;
                    if (entries.size() >= MAX_ENTRIES) {
                        throw new IllegalArgumentException("worker address has more than " + MAX_ENTRIES
                                + " transports");
                    }
                    need(2, where + " name checksum");
                    int csum = (b[at] & 0xff) | (b[at + 1] & 0xff) << 8;
                    at += 2;
                    if (v2) {
                        bytes(8, where + " attributes");
                    } else {
                        need(16, where + " attributes");
                        float overhead = Float.intBitsToFloat((int) le32(b, at));
                        float bandwidth = Float.intBitsToFloat((int) le32(b, at + 4));
                        float latency = Float.intBitsToFloat((int) le32(b, at + 8));
                        at += 16;
                        if (!(bandwidth > 0) || Float.isInfinite(bandwidth) || !(overhead >= 0)
                                || Float.isInfinite(overhead) || Float.isNaN(latency) || Float.isInfinite(latency)) {
                            throw new IllegalArgumentException("worker address " + where + " (" + nameOf(csum)
                                    + ") has impossible attributes: overhead " + overhead + ", bandwidth " + bandwidth
                                    + ", latency " + latency);
                        }
                    }
                    int ifByte = u8(where + " iface address length");
                    lastTl = (ifByte & 0x80) != 0;
                    if ((ifByte & 0x40) != 0) {
                        throw new IllegalArgumentException("worker address " + where
                                + " carries endpoint addresses; a worker address has none");
                    }
                    int ifLength = ifByte & 0x3f;
                    if (v2 && ifLength == 0x3f) {
                        ifLength = u8(where + " extended iface address length");
                    }
                    byte[] iface = bytes(ifLength, where + " iface address");
                    Entry e = new Entry(md, csum, devAddr, iface);
                    checkKnownLengths(e, where);
                    entries.add(e);
                }
            }
            if (at != b.length) {
                throw new IllegalArgumentException("worker address has " + (b.length - at)
                        + " bytes after its last device");
            }
            if (entries.isEmpty()) {
                throw new IllegalArgumentException("worker address lists no transport");
            }
            return new UcpWorkerAddress(version, uuid, List.copyOf(entries));
        }
    }

    /** The device and iface address lengths UCX 1.18's own transports read without checking. */
    private static void checkKnownLengths(Entry e, String where) {
        int csum = e.tlChecksum;
        int dev = e.device.length;
        int iface = e.iface.length;
        String problem = null;
        if (csum == SELF) {
            if (iface != 8) {
                problem = "a self iface address is 8 bytes";
            }
        } else if (csum == SYSV || csum == POSIX || csum == CMA) {
            if (dev != 8 && dev != 16) {
                problem = "a shared-memory device address is 8 or 16 bytes";
            } else if ((dev == 16) != ((le64(e.device, 0) & LOCAL_ADDR_FLAG_NS) != 0)) {
                problem = "the shared-memory device address's namespace flag and length disagree";
            } else if (csum == SYSV && iface != 8) {
                problem = "a sysv iface address is the 8-byte FIFO segment id";
            } else if (csum == POSIX && (iface < 8 || !posixIfaceTailFits(e))) {
                problem = "a posix iface address is an 8-byte FIFO segment id and a namespace id or directory";
            } else if (csum == CMA && iface != 4 && iface != 12) {
                problem = "a cma iface address is a 4-byte pid and an optional 8-byte namespace id";
            }
        } else if (csum == TCP) {
            if (iface != 2) {
                problem = "a tcp iface address is the 2-byte port";
            } else if (dev < 2) {
                problem = "a tcp device address starts with flags and an address family";
            } else {
                boolean loopback = (e.device[0] & 0x01) != 0;
                int family = e.device[1] & 0xff;
                int body = dev - 2;
                if (loopback) {
                    if (body != 8 && body != 16) {
                        problem = "a tcp loopback device address carries an 8- or 16-byte host id";
                    }
                } else if (!(family == 2 && body == 4) && !(family == 10 && body == 16)) {
                    problem = "a tcp device address is an IPv4 (4-byte) or IPv6 (16-byte) address";
                }
            }
        }
        if (problem != null) {
            throw new IllegalArgumentException("worker address " + where + " (" + nameOf(csum) + "): " + problem
                    + ", found device " + dev + " and iface " + iface + " bytes");
        }
    }

    /** Posix: after the FIFO segment id, an 8-byte pid namespace (proc link) or a directory string. */
    private static boolean posixIfaceTailFits(Entry e) {
        int tail = e.iface.length - 8;
        long segId = le64(e.iface, 0);
        boolean procLink = (segId & PosixSegmentId.PROCFS) != 0;
        if (procLink) {
            return tail == ((segId & PosixSegmentId.PID_NS) != 0 ? 8 : 0);
        }
        if ((segId & PosixSegmentId.SHM_OPEN) != 0) {
            return tail == 0;
        }
        return tail > 1 && e.iface[e.iface.length - 1] == 0;
    }

    static long le64(byte[] b, int at) {
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = (v << 8) | (b[at + i] & 0xffL);
        }
        return v;
    }

    static long le32(byte[] b, int at) {
        return (b[at] & 0xffL) | (b[at + 1] & 0xffL) << 8 | (b[at + 2] & 0xffL) << 16 | (b[at + 3] & 0xffL) << 24;
    }

    /** {@code ucs_crc16_string}: CRC-16-CCITT (reflected polynomial 0x8408), inverted. */
    static int crc16(String s) {
        int crc = 0xffff;
        for (byte x : s.getBytes(java.nio.charset.StandardCharsets.US_ASCII)) {
            crc ^= x & 0xff;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc >>> 1) ^ (-(crc & 1) & 0x8408);
            }
        }
        return ~crc & 0xffff;
    }

    static String nameOf(int csum) {
        if (csum == SELF) {
            return "self";
        } else if (csum == TCP) {
            return "tcp";
        } else if (csum == SYSV) {
            return "sysv";
        } else if (csum == POSIX) {
            return "posix";
        } else if (csum == CMA) {
            return "cma";
        }
        return "transport 0x" + Integer.toHexString(csum);
    }
}
