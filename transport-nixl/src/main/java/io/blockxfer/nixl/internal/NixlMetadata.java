package io.blockxfer.nixl.internal;

import io.blockxfer.transport.MalformedPeerDescriptorException;
import io.blockxfer.transport.TransportException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * The agent metadata a NIXL transport publishes, and its validation before any of it reaches
 * {@code nixl_capi_load_remote_md}.
 *
 * <p>Two forms are accepted:
 * <ul>
 *   <li><b>Framed</b> (what blockxfer publishes), little-endian: magic {@code "BXNX"}, u16 version
 *       (1), u16 flags (0), u8 length + agent name, i64 instance nonce, i32 process id, i64 region
 *       address, i64 region length, i32 length + NIXL's own metadata blob, u32 CRC-32C of all
 *       before it. Nothing may follow.</li>
 *   <li><b>Raw</b>: NIXL's own blob as {@code get_local_md} (C) or {@code get_agent_metadata()}
 *       (Python) returns it, for peers that are plain NIXL agents such as vLLM's.</li>
 * </ul>
 * In both forms NIXL's blob is parsed strictly, in the serialisation layout every certified NIXL
 * release (1.0 to 1.5) writes ({@code "nixlSerDes|"}, then tagged, length-prefixed,
 * {@code '|'}-terminated fields: the agent name, one connection blob per backend, and the
 * registered memory sections with their descriptors). The parse must consume the blob exactly.
 * This matters: NIXL loads a blob whose memory section is cut short far enough to leave the agent
 * unable to load that name ever again, so a truncated blob must never reach it. The parse also
 * yields the regions the peer registered, against which a descriptor's geometry is checked.
 *
 * <p>Inside the blob, the two objects NIXL's UCX plugin hands to UCX without a length are walked
 * field by field as UCX would walk them ({@link UcxWireFormat}): the UCX worker address (the UCX
 * backend's connection blob) and the packed remote key of every registered region. A changed byte
 * there used to abort the process inside UCX ({@code addr_version} assertion) or make it read past
 * the blob.
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param agentName the NIXL agent name inside the blob
 * @param nixlBlob NIXL's own metadata, to hand to {@code load_remote_md}
 * @param nonce the framing's instance nonce, or 0 for a raw blob
 * @param pid the framing's process id, or 0 for a raw blob
 * @param regions the DRAM regions the peer registered, from NIXL's blob
 * @param framed whether the metadata came framed
 */
@SuppressWarnings("ArrayRecordComponent") // equals, hashCode and toString below compare and print the blob's content
public record NixlMetadata(String agentName, byte[] nixlBlob, long nonce, int pid, List<Region> regions,
        boolean framed) {

    /** The framing version written and read. */
    public static final int VERSION = 1;

    private static final int MAGIC = 0x584e5842; // "BXNX" little-endian
    private static final byte[] SERDES = "nixlSerDes|".getBytes(StandardCharsets.US_ASCII);
    private static final int MAX_NAME = 255;
    private static final int MAX_BACKENDS = 64;
    private static final int MAX_SECTIONS = 4096;
    private static final long MAX_DESCS = 1L << 24;
    private static final int DRAM = 0;

    /**
     * A registered memory range of the peer.
     *
     * @param memType NIXL's memory type (0 = DRAM)
     * @param address its first byte
     * @param length its length
     * @param deviceId NIXL's device id of the range
     */
    public record Region(int memType, long address, long length, long deviceId) {
        /** Whether {@code [start, start + bytes)} lies inside this range. */
        public boolean contains(long start, long bytes) {
            return Long.compareUnsigned(start, address) >= 0 && bytes >= 0
                    && Long.compareUnsigned(start - address, length) <= 0
                    && Long.compareUnsigned(bytes, length - (start - address)) <= 0;
        }
    }

    /** The DRAM region that holds {@code [start, start + bytes)}, if any. */
    public Optional<Region> dramRegionHolding(long start, long bytes) {
        for (Region r : regions) {
            if (r.memType == DRAM && r.contains(start, bytes)) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }

    /** Frames NIXL's blob of a local agent (after checking that it parses). */
    public static byte[] frame(String agentName, long nonce, int pid, long regionAddress, long regionLength,
            byte[] nixlBlob) {
        byte[] name = agentName.getBytes(StandardCharsets.US_ASCII);
        if (name.length == 0 || name.length > MAX_NAME) {
            throw new IllegalArgumentException("agent name must be 1-" + MAX_NAME + " ASCII bytes: " + agentName);
        }
        parseNixl(nixlBlob); // never publish what we would not load
        ByteBuffer buf = ByteBuffer.allocate(4 + 2 + 2 + 1 + name.length + 8 + 4 + 8 + 8 + 4 + nixlBlob.length + 4)
                .order(ByteOrder.LITTLE_ENDIAN);
        buf.putInt(MAGIC).putShort((short) VERSION).putShort((short) 0).put((byte) name.length).put(name);
        buf.putLong(nonce).putInt(pid).putLong(regionAddress).putLong(regionLength);
        buf.putInt(nixlBlob.length).put(nixlBlob);
        CRC32C crc = new CRC32C();
        crc.update(buf.array(), 0, buf.position());
        buf.putInt((int) crc.getValue());
        return buf.array();
    }

    /**
     * Validates peer metadata, framed or raw.
     *
     * @throws MalformedPeerDescriptorException for anything but a complete, consistent blob
     */
    public static NixlMetadata parse(byte[] metadata) {
        if (metadata == null || metadata.length == 0) {
            throw new MalformedPeerDescriptorException("NIXL metadata is empty");
        }
        if (metadata.length >= 4 && ByteBuffer.wrap(metadata).order(ByteOrder.LITTLE_ENDIAN).getInt(0) == MAGIC) {
            return parseFramed(metadata);
        }
        if (startsWith(metadata, SERDES)) {
            Parsed p = parseNixl(metadata);
            return new NixlMetadata(p.name, metadata.clone(), 0, 0, p.regions, false);
        }
        throw new MalformedPeerDescriptorException("NIXL metadata of " + metadata.length
                + " bytes is neither blockxfer-framed (magic BXNX) nor a NIXL blob (nixlSerDes|)");
    }

    /**
     * A transport's own metadata must pass the checks every peer applies to it (NIXL's layout, the
     * UCX worker address and remote keys, the region inside what the blob says is registered): a
     * release whose serialisation moved fails at open, rather than at some peer's {@code addPeer}.
     * It also loads and runs the parser once, so the first {@code addPeer} does not pay for that.
     *
     * @throws TransportException if it does not
     */
    static void checkOwn(byte[] framed, long regionAddress, long regionBytes) {
        NixlMetadata own;
        try {
            own = parse(framed);
        } catch (MalformedPeerDescriptorException e) {
            throw new TransportException("this agent's own NIXL metadata does not pass the checks peers apply: "
                    + e.getMessage(), e);
        }
        if (own.dramRegionHolding(regionAddress, regionBytes).isEmpty()) {
            throw new TransportException("this agent's own NIXL metadata does not show its region registered: "
                    + own.regions());
        }
    }

    private static NixlMetadata parseFramed(byte[] blob) {
        ByteBuffer buf = ByteBuffer.wrap(blob).order(ByteOrder.LITTLE_ENDIAN);
        try {
            buf.getInt();
            int version = Short.toUnsignedInt(buf.getShort());
            if (version != VERSION) {
                throw new MalformedPeerDescriptorException("unsupported NIXL metadata framing version " + version
                        + " (this build reads " + VERSION + ")");
            }
            int flags = Short.toUnsignedInt(buf.getShort());
            if (flags != 0) {
                throw new MalformedPeerDescriptorException("unknown NIXL metadata flags 0x" + Integer.toHexString(flags));
            }
            int nameLength = Byte.toUnsignedInt(buf.get());
            byte[] name = new byte[nameLength];
            buf.get(name);
            long nonce = buf.getLong();
            int pid = buf.getInt();
            long regionAddress = buf.getLong();
            long regionLength = buf.getLong();
            int blobLength = buf.getInt();
            if (blobLength <= 0 || blobLength != buf.remaining() - 4) {
                throw new MalformedPeerDescriptorException("NIXL blob length " + blobLength + " does not match the "
                        + (buf.remaining() - 4) + " bytes left before the checksum");
            }
            byte[] nixl = new byte[blobLength];
            buf.get(nixl);
            CRC32C crc = new CRC32C();
            crc.update(blob, 0, buf.position());
            int stored = buf.getInt();
            if (stored != (int) crc.getValue()) {
                throw new MalformedPeerDescriptorException("NIXL metadata checksum mismatch: stored 0x"
                        + Integer.toHexString(stored) + ", computed 0x" + Long.toHexString(crc.getValue()));
            }
            String agent = ascii(name, "agent name");
            Parsed p = parseNixl(nixl);
            if (!p.name.equals(agent)) {
                throw new MalformedPeerDescriptorException("framed agent name '" + agent + "' differs from the name '"
                        + printable(p.name) + "' inside NIXL's blob");
            }
            boolean covered = p.regions.stream().anyMatch(r -> r.memType == DRAM && r.contains(regionAddress,
                    regionLength));
            if (!covered) {
                throw new MalformedPeerDescriptorException("framed region of " + regionLength + " bytes at 0x"
                        + Long.toHexString(regionAddress) + " is not one the peer registered with NIXL: " + p.regions);
            }
            return new NixlMetadata(agent, nixl, nonce, pid, p.regions, true);
        } catch (BufferUnderflowException e) {
            throw new MalformedPeerDescriptorException("NIXL metadata truncated at byte " + buf.position(), e);
        }
    }

    private record Parsed(String name, List<Region> regions) {
    }

    /** Parses NIXL 1.5.1's serialised agent metadata, consuming it exactly. */
    static Parsed parseNixl(byte[] blob) {
        Reader r = new Reader(blob);
        try {
            r.expect(SERDES, "the nixlSerDes| header");
            String name = r.string("Agent", MAX_NAME);
            if (name.isEmpty()) {
                throw r.bad("empty agent name");
            }
            long conns = r.u64("Conns");
            if (conns < 1 || conns > MAX_BACKENDS) {
                throw r.bad("backend count " + conns + " out of range [1, " + MAX_BACKENDS + "]");
            }
            for (long c = 0; c < conns; c++) {
                String backend = r.string("t", 64);
                ByteBuffer conn = r.field("c", 1 << 20);
                if (backend.equals("UCX")) {
                    UcxWireFormat.checkWorkerAddress(blob, conn.arrayOffset() + conn.position(), conn.remaining());
                }
            }
            String section = r.string("", 16);
            if (!section.equals("MemSection")) {
                throw r.bad("expected MemSection, found '" + printable(section) + "'");
            }
            long sections = r.u64("nixlSecElms");
            if (sections < 0 || sections > MAX_SECTIONS) {
                throw r.bad("section count " + sections + " out of range");
            }
            List<Region> regions = new ArrayList<>();
            for (long s = 0; s < sections; s++) {
                String backend = r.string("bknd", 64);
                String kind = r.string("nixlDList", 16);
                if (!kind.equals("nixlSDList") && !kind.equals("nixlBDList")) {
                    throw r.bad("unknown descriptor list kind '" + printable(kind) + "'");
                }
                int memType = r.u32("t");
                if (memType < 0 || memType > 5) {
                    throw r.bad("unknown memory type " + memType);
                }
                long n = r.u64("n");
                if (n < 0 || n > MAX_DESCS) {
                    throw r.bad("descriptor count " + n + " out of range");
                }
                if (n == 0) {
                    continue;
                }
                if (kind.equals("nixlBDList")) {
                    ByteBuffer descs = r.field("", 24L * n);
                    if (descs.remaining() != 24L * n) {
                        throw r.bad("basic descriptor block of " + descs.remaining() + " bytes for " + n + " descriptors");
                    }
                    for (long d = 0; d < n; d++) {
                        regions.add(new Region(memType, descs.getLong(), descs.getLong(), descs.getLong()));
                    }
                } else {
                    for (long d = 0; d < n; d++) {
                        ByteBuffer desc = r.field("", 1 << 20);
                        if (desc.remaining() < 24) {
                            throw r.bad("descriptor of " + desc.remaining() + " bytes, at least 24 expected");
                        }
                        Region region = new Region(memType, desc.getLong(), desc.getLong(), desc.getLong());
                        if (region.length() <= 0 || region.address() == 0
                                || Long.compareUnsigned(region.address() + region.length(), region.address()) < 0) {
                            throw r.bad("registered region of " + region.length() + " bytes at 0x"
                                    + Long.toHexString(region.address()) + " is empty, null or wraps around");
                        }
                        if (backend.equals("UCX")) {
                            // the rest is the region's packed UCX remote key, unpacked by UCX on load
                            UcxWireFormat.checkRkey(blob, desc.arrayOffset() + desc.position(), desc.remaining(),
                                    memType);
                        }
                        regions.add(region);
                    }
                }
            }
            if (r.remaining() != 0) {
                throw r.bad(r.remaining() + " unexpected bytes after the memory section");
            }
            return new Parsed(name, List.copyOf(regions));
        } catch (BufferUnderflowException | IndexOutOfBoundsException e) {
            throw new MalformedPeerDescriptorException("NIXL metadata blob truncated at byte " + r.buf.position()
                    + " of " + blob.length, e);
        }
    }

    /** A strict reader of NIXL's serdes fields: tag, u64 length, bytes, '|'. */
    private static final class Reader {
        final ByteBuffer buf;

        Reader(byte[] blob) {
            this.buf = ByteBuffer.wrap(blob).order(ByteOrder.LITTLE_ENDIAN);
        }

        int remaining() {
            return buf.remaining();
        }

        void expect(byte[] bytes, String what) {
            for (byte b : bytes) {
                if (buf.get() != b) {
                    throw bad("expected " + what);
                }
            }
        }

        ByteBuffer field(String tag, long maxLength) {
            expect(tag.getBytes(StandardCharsets.US_ASCII), "tag '" + tag + "'");
            long length = buf.getLong();
            if (length < 0 || length > maxLength || length > buf.remaining() - 1) {
                throw bad("field '" + tag + "' claims " + length + " bytes, " + (buf.remaining() - 1) + " are left");
            }
            ByteBuffer value = buf.slice(buf.position(), (int) length).order(ByteOrder.LITTLE_ENDIAN);
            buf.position(buf.position() + (int) length);
            if (buf.get() != '|') {
                throw bad("field '" + tag + "' is not terminated by '|'");
            }
            return value;
        }

        String string(String tag, int maxLength) {
            ByteBuffer v = field(tag, maxLength);
            byte[] bytes = new byte[v.remaining()];
            v.get(bytes);
            return ascii(bytes, "field '" + tag + "'");
        }

        long u64(String tag) {
            ByteBuffer v = field(tag, 8);
            if (v.remaining() != 8) {
                throw bad("field '" + tag + "' has " + v.remaining() + " bytes, 8 expected");
            }
            return v.getLong();
        }

        int u32(String tag) {
            ByteBuffer v = field(tag, 4);
            if (v.remaining() != 4) {
                throw bad("field '" + tag + "' has " + v.remaining() + " bytes, 4 expected");
            }
            return v.getInt();
        }

        MalformedPeerDescriptorException bad(String what) {
            return new MalformedPeerDescriptorException("malformed NIXL metadata at byte " + buf.position() + ": "
                    + what);
        }
    }

    private static String ascii(byte[] bytes, String what) {
        for (byte b : bytes) {
            if (b < 0x20 || b >= 0x7f) {
                throw new MalformedPeerDescriptorException(what + " holds a non-printable byte 0x"
                        + Integer.toHexString(b & 0xff));
            }
        }
        return new String(bytes, StandardCharsets.US_ASCII);
    }

    private static boolean startsWith(byte[] data, byte[] prefix) {
        return data.length >= prefix.length && Arrays.equals(data, 0, prefix.length, prefix, 0, prefix.length);
    }

    private static String printable(String s) {
        return s.length() > 64 ? s.substring(0, 64) + "..." : s;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NixlMetadata m && agentName.equals(m.agentName) && Arrays.equals(nixlBlob, m.nixlBlob)
                && nonce == m.nonce && pid == m.pid && framed == m.framed;
    }

    @Override
    public int hashCode() {
        return agentName.hashCode() * 31 + Arrays.hashCode(nixlBlob);
    }

    @Override
    public String toString() {
        return "NixlMetadata[agent '" + agentName + "', " + nixlBlob.length + " B NIXL blob, "
                + (framed ? "framed, nonce " + Long.toHexString(nonce) + ", pid " + pid : "raw") + ", regions "
                + regions + "]";
    }
}
