package io.blockxfer.transport;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * Everything a remote needs to register a transport as a peer: the backend's opaque agent
 * metadata, the region's base address, block count and block length, the config fingerprint, and
 * the backend name. {@link #encode()} turns it into one versioned, checksummed blob for the control
 * plane; {@link #decode(byte[])} validates such a blob from the network.
 *
 * <p>Wire format, version 1, little-endian: magic {@code "BXPD"}, u16 version, u16 flags (0),
 * u8 length + backend name (1-64 chars of {@code [a-z0-9._-]}), u8 length + fingerprint (0-64
 * lowercase hex chars), i64 base address (&ge; 0), i32 block count (&gt; 0), i64 block length
 * (&gt; 0, region size below 2<sup>62</sup>), i32 length + metadata (at most
 * {@link #MAX_METADATA_BYTES}), u32 CRC-32C of everything before it. Nothing may follow.
 *
 * <p><b>Thread safety:</b> immutable; accessors return copies of the metadata.
 */
public final class PeerDescriptor {

    /** The largest backend metadata accepted, 1 MiB. */
    public static final int MAX_METADATA_BYTES = 1 << 20;
    /** The current wire format version. */
    public static final int VERSION = 1;

    private static final int MAGIC = 0x44505842; // "BXPD" little-endian
    private static final int MAX_NAME = 64;
    private static final long MAX_REGION_BYTES = 1L << 62;
    private static final int FIXED_BYTES = 4 + 2 + 2 + 1 + 1 + 8 + 4 + 8 + 4 + 4;

    private final String backend;
    private final String fingerprint;
    private final long baseAddress;
    private final int numBlocks;
    private final long blockLength;
    private final byte[] metadata;

    /**
     * A descriptor with validated fields.
     *
     * @throws IllegalArgumentException if a field is out of its range (see the wire format)
     */
    public PeerDescriptor(String backend, String fingerprint, long baseAddress, int numBlocks, long blockLength,
            byte[] metadata) {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(metadata, "metadata");
        String problem = problem(backend, fingerprint, baseAddress, numBlocks, blockLength, metadata.length);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        this.backend = backend;
        this.fingerprint = fingerprint;
        this.baseAddress = baseAddress;
        this.numBlocks = numBlocks;
        this.blockLength = blockLength;
        this.metadata = metadata.clone();
    }

    /** The descriptor of {@code region} for {@code backend} with the given metadata. */
    public static PeerDescriptor of(String backend, String fingerprint, BlockRegion region, byte[] metadata) {
        return new PeerDescriptor(backend, fingerprint, region.baseAddress(), region.numBlocks(),
                region.blockLength(), metadata);
    }

    private static String problem(String backend, String fingerprint, long base, int blocks, long blockLength,
            int metadataLength) {
        if (backend.isEmpty() || backend.length() > MAX_NAME || !backend.chars().allMatch(PeerDescriptor::nameChar)) {
            return "backend name must be 1-" + MAX_NAME + " chars of [a-z0-9._-]: '" + printable(backend) + "'";
        }
        if (fingerprint.length() > MAX_NAME || !fingerprint.chars().allMatch(PeerDescriptor::hexChar)) {
            return "fingerprint must be 0-" + MAX_NAME + " lowercase hex chars: '" + printable(fingerprint) + "'";
        }
        if (base < 0) {
            return "base address must not be negative: " + base;
        }
        if (blocks <= 0) {
            return "block count must be positive: " + blocks;
        }
        if (blockLength <= 0) {
            return "block length must be positive: " + blockLength;
        }
        if (blockLength > MAX_REGION_BYTES / blocks) {
            return "region of " + blocks + " x " + blockLength + " bytes is too large";
        }
        if (base > Long.MAX_VALUE - blocks * blockLength) {
            return "region at " + base + " of " + blocks * blockLength + " bytes wraps the address space";
        }
        if (metadataLength > MAX_METADATA_BYTES) {
            return "metadata of " + metadataLength + " bytes exceeds " + MAX_METADATA_BYTES;
        }
        return null;
    }

    private static boolean nameChar(int c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    }

    private static boolean hexChar(int c) {
        return (c >= 'a' && c <= 'f') || (c >= '0' && c <= '9');
    }

    private static String printable(String s) {
        String cut = s.length() > 80 ? s.substring(0, 80) + "..." : s;
        return cut.codePoints().allMatch(c -> c >= 0x20 && c < 0x7f) ? cut : "<non-printable>";
    }

    /** The provider name of the backend that produced the metadata. */
    public String backend() {
        return backend;
    }

    /** The config fingerprint of the peer's transport; {@code ""} if it has no config fields. */
    public String fingerprint() {
        return fingerprint;
    }

    /** The native address of the peer's block 0. */
    public long baseAddress() {
        return baseAddress;
    }

    /** The number of blocks in the peer's region. */
    public int numBlocks() {
        return numBlocks;
    }

    /** The length of one of the peer's blocks in bytes. */
    public long blockLength() {
        return blockLength;
    }

    /** A copy of the backend's opaque agent metadata. */
    public byte[] metadata() {
        return metadata.clone();
    }

    /** The length of the agent metadata, without copying it. */
    public int metadataLength() {
        return metadata.length;
    }

    /** This descriptor as one blob (see the class comment for the format). */
    public byte[] encode() {
        byte[] name = backend.getBytes(StandardCharsets.US_ASCII);
        byte[] fp = fingerprint.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer buf = ByteBuffer.allocate(FIXED_BYTES + name.length + fp.length + metadata.length)
                .order(ByteOrder.LITTLE_ENDIAN);
        buf.putInt(MAGIC).putShort((short) VERSION).putShort((short) 0);
        buf.put((byte) name.length).put(name);
        buf.put((byte) fp.length).put(fp);
        buf.putLong(baseAddress).putInt(numBlocks).putLong(blockLength);
        buf.putInt(metadata.length).put(metadata);
        CRC32C crc = new CRC32C();
        crc.update(buf.array(), 0, buf.position());
        buf.putInt((int) crc.getValue());
        return buf.array();
    }

    /**
     * Parses and validates a blob from {@link #encode()}.
     *
     * @throws MalformedPeerDescriptorException for anything but a well-formed version-1 blob; this
     *     is the only exception thrown for bad bytes
     * @throws NullPointerException if {@code blob} is null
     */
    public static PeerDescriptor decode(byte[] blob) {
        Objects.requireNonNull(blob, "blob");
        if (blob.length < FIXED_BYTES) {
            throw new MalformedPeerDescriptorException(
                    "peer descriptor truncated: " + blob.length + " bytes, at least " + FIXED_BYTES + " needed");
        }
        if (blob.length > FIXED_BYTES + 2 * MAX_NAME + MAX_METADATA_BYTES) {
            throw new MalformedPeerDescriptorException("peer descriptor oversized: " + blob.length + " bytes");
        }
        ByteBuffer buf = ByteBuffer.wrap(blob).order(ByteOrder.LITTLE_ENDIAN);
        try {
            int magic = buf.getInt();
            if (magic != MAGIC) {
                throw new MalformedPeerDescriptorException(
                        "not a blockxfer peer descriptor: magic 0x" + Integer.toHexString(magic));
            }
            int version = Short.toUnsignedInt(buf.getShort());
            if (version != VERSION) {
                throw new MalformedPeerDescriptorException(
                        "unsupported peer descriptor version " + version + " (this build reads " + VERSION + ")");
            }
            int flags = Short.toUnsignedInt(buf.getShort());
            if (flags != 0) {
                throw new MalformedPeerDescriptorException("unknown peer descriptor flags 0x" + Integer.toHexString(flags));
            }
            String backend = readName(buf, "backend name");
            String fingerprint = readName(buf, "fingerprint");
            long base = buf.getLong();
            int blocks = buf.getInt();
            long blockLength = buf.getLong();
            int metadataLength = buf.getInt();
            if (metadataLength < 0 || metadataLength > MAX_METADATA_BYTES) {
                throw new MalformedPeerDescriptorException("metadata length out of range: " + metadataLength);
            }
            if (metadataLength != buf.remaining() - 4) {
                throw new MalformedPeerDescriptorException("metadata length " + metadataLength + " does not match the "
                        + (buf.remaining() - 4) + " bytes left before the checksum");
            }
            byte[] metadata = new byte[metadataLength];
            buf.get(metadata);
            CRC32C crc = new CRC32C();
            crc.update(blob, 0, buf.position());
            int expected = buf.getInt();
            if (expected != (int) crc.getValue()) {
                throw new MalformedPeerDescriptorException("peer descriptor checksum mismatch: stored 0x"
                        + Integer.toHexString(expected) + ", computed 0x" + Long.toHexString(crc.getValue()));
            }
            String problem = problem(backend, fingerprint, base, blocks, blockLength, metadataLength);
            if (problem != null) {
                throw new MalformedPeerDescriptorException("invalid peer descriptor: " + problem);
            }
            return new PeerDescriptor(backend, fingerprint, base, blocks, blockLength, metadata);
        } catch (BufferUnderflowException e) {
            throw new MalformedPeerDescriptorException("peer descriptor truncated at byte " + buf.position(), e);
        }
    }

    private static String readName(ByteBuffer buf, String what) {
        int length = Byte.toUnsignedInt(buf.get());
        if (length > MAX_NAME) {
            throw new MalformedPeerDescriptorException(what + " length out of range: " + length);
        }
        byte[] bytes = new byte[length];
        buf.get(bytes);
        for (byte b : bytes) {
            if (b < 0x20 || b >= 0x7f) {
                throw new MalformedPeerDescriptorException(what + " holds a non-printable byte 0x"
                        + HexFormat.of().toHexDigits(b));
            }
        }
        return new String(bytes, StandardCharsets.US_ASCII);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PeerDescriptor p && backend.equals(p.backend) && fingerprint.equals(p.fingerprint)
                && baseAddress == p.baseAddress && numBlocks == p.numBlocks && blockLength == p.blockLength
                && Arrays.equals(metadata, p.metadata);
    }

    @Override
    public int hashCode() {
        return Objects.hash(backend, fingerprint, baseAddress, numBlocks, blockLength) * 31 + Arrays.hashCode(metadata);
    }

    @Override
    public String toString() {
        return "PeerDescriptor[" + backend + ", " + numBlocks + " x " + blockLength + " B at 0x"
                + Long.toHexString(baseAddress) + ", fingerprint '" + fingerprint + "', " + metadata.length
                + " B metadata]";
    }
}
