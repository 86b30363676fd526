package io.blockxfer.transport;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * Everything a remote needs to register a transport as a peer: the backend's opaque agent
 * metadata, the region's base address, block count and block length, the config fingerprint, and
 * the backend name, and optionally a signature: the id of a {@link DeploymentKeyRing} key and an
 * HMAC-SHA-256 under that key over all the other bytes of the encoding. {@link #encode()} turns it
 * into one versioned, checksummed blob for the control plane; {@link #decode(byte[])} validates such
 * a blob from the network, and {@link #decode(byte[], DeploymentKeyRing)} first authenticates it.
 *
 * <p>Wire format, version 1, little-endian: magic {@code "BXPD"}, u16 version, u16 flags (0, or
 * 1 when signed), [signed only: u8 length + key id (1-64 chars of {@code [A-Za-z0-9._-]})], u8
 * length + backend name (1-64 chars of {@code [a-z0-9._-]}), u8 length + fingerprint (0-64
 * lowercase hex chars), i64 base address (&ge; 0), i32 block count (&gt; 0), i64 block length
 * (&gt; 0, region size below 2<sup>62</sup>), i32 length + metadata (at most
 * {@link #MAX_METADATA_BYTES}), [signed only: 32-byte HMAC-SHA-256 of everything before it], u32
 * CRC-32C of everything before it. Nothing may follow. The CRC catches accidents; only the MAC
 * stops a forger. Unsigned blobs are byte for byte those of earlier releases.
 *
 * <p>Equality covers every field, the signature included.
 *
 * <p><b>Thread safety:</b> immutable; accessors return copies of the metadata.
 */
public final class PeerDescriptor {

    /** The largest backend metadata accepted, 1 MiB. */
    public static final int MAX_METADATA_BYTES = 1 << 20;
    /** The current wire format version. */
    public static final int VERSION = 1;

    private static final int MAGIC = 0x44505842; // "BXPD" little-endian
    private static final int FLAG_SIGNED = 1;
    private static final int MAX_NAME = 64;
    private static final long MAX_REGION_BYTES = 1L << 62;
    private static final int HEADER_BYTES = 4 + 2 + 2;
    private static final int FIXED_BYTES = HEADER_BYTES + 1 + 1 + 8 + 4 + 8 + 4 + 4;
    private static final int MAX_SIGNATURE_BYTES = 1 + DeploymentKeyRing.MAX_KEY_ID_LENGTH
            + DeploymentKeyRing.MAC_BYTES;
    private static final int MAX_BLOB_BYTES = FIXED_BYTES + 2 * MAX_NAME + MAX_METADATA_BYTES + MAX_SIGNATURE_BYTES;

    private final String backend;
    private final String fingerprint;
    private final long baseAddress;
    private final int numBlocks;
    private final long blockLength;
    private final byte[] metadata;
    private final @Nullable String keyId;
    private final byte @Nullable [] mac;

    /**
     * An unsigned descriptor with validated fields.
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
        this.keyId = null;
        this.mac = null;
    }

    private PeerDescriptor(PeerDescriptor fields, @Nullable String keyId, byte @Nullable [] mac) {
        this.backend = fields.backend;
        this.fingerprint = fields.fingerprint;
        this.baseAddress = fields.baseAddress;
        this.numBlocks = fields.numBlocks;
        this.blockLength = fields.blockLength;
        this.metadata = fields.metadata;
        this.keyId = keyId;
        this.mac = mac;
    }

    /** The descriptor of {@code region} for {@code backend} with the given metadata. */
    public static PeerDescriptor of(String backend, String fingerprint, BlockRegion region, byte[] metadata) {
        return new PeerDescriptor(backend, fingerprint, region.baseAddress(), region.numBlocks(),
                region.blockLength(), metadata);
    }

    private static @Nullable String problem(String backend, String fingerprint, long base, int blocks, long blockLength,
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

    /** Whether this descriptor carries a signature (which {@link DeploymentKeyRing#verify} checks). */
    public boolean isSigned() {
        return keyId != null;
    }

    /** The id of the key this descriptor is signed with; empty when it is unsigned. */
    public Optional<String> keyId() {
        return Optional.ofNullable(keyId);
    }

    /**
     * This descriptor signed with {@code ring}'s signing key (replacing any earlier signature).
     * A transport with a key ring hands out its {@link DataTransport#localDescriptor()} signed
     * already; this is for descriptors built by hand.
     */
    public PeerDescriptor signedWith(DeploymentKeyRing ring) {
        Objects.requireNonNull(ring, "ring");
        String id = ring.signingKeyId();
        byte[] signed = encodeSigned(id);
        return new PeerDescriptor(this, id, ring.sign(signed, 0, signed.length));
    }

    /** This descriptor without its signature (itself if it has none). */
    public PeerDescriptor unsigned() {
        return keyId == null ? this : new PeerDescriptor(this, null, null);
    }

    /** The signing key id, or null. */
    @Nullable String signingKeyId() {
        return keyId;
    }

    /** The MAC (not a copy), or null. */
    byte @Nullable [] mac() {
        return mac;
    }

    /** The bytes the signature covers: the encoding up to, not including, the MAC. */
    byte[] signedBytes() {
        return encodeSigned(keyId);
    }

    /** This descriptor as one blob (see the class comment for the format). */
    public byte[] encode() {
        byte[] signed = encodeSigned(keyId);
        int macLength = mac == null ? 0 : mac.length;
        byte[] blob = Arrays.copyOf(signed, signed.length + macLength + 4);
        if (mac != null) {
            System.arraycopy(mac, 0, blob, signed.length, macLength);
        }
        CRC32C crc = new CRC32C();
        crc.update(blob, 0, blob.length - 4);
        ByteBuffer.wrap(blob).order(ByteOrder.LITTLE_ENDIAN).putInt(blob.length - 4, (int) crc.getValue());
        return blob;
    }

    /** The encoding up to the MAC, signed under {@code id} (unsigned when null). */
    private byte[] encodeSigned(@Nullable String id) {
        byte[] name = backend.getBytes(StandardCharsets.US_ASCII);
        byte[] fp = fingerprint.getBytes(StandardCharsets.US_ASCII);
        byte[] key = id == null ? new byte[0] : id.getBytes(StandardCharsets.US_ASCII);
        int signatureHeader = id == null ? 0 : 1 + key.length;
        ByteBuffer buf = ByteBuffer.allocate(FIXED_BYTES - 4 + signatureHeader + name.length + fp.length
                + metadata.length).order(ByteOrder.LITTLE_ENDIAN);
        buf.putInt(MAGIC).putShort((short) VERSION).putShort((short) (id == null ? 0 : FLAG_SIGNED));
        if (id != null) {
            buf.put((byte) key.length).put(key);
        }
        buf.put((byte) name.length).put(name);
        buf.put((byte) fp.length).put(fp);
        buf.putLong(baseAddress).putInt(numBlocks).putLong(blockLength);
        buf.putInt(metadata.length).put(metadata);
        return buf.array();
    }

    /**
     * Parses and validates a blob from {@link #encode()}, signed or not. A signature is kept but
     * not checked: a transport with a key ring checks it in {@code addPeer}, and
     * {@link #decode(byte[], DeploymentKeyRing)} checks it before parsing.
     *
     * @throws MalformedPeerDescriptorException for anything but a well-formed version-1 blob; this
     *     is the only exception thrown for bad bytes
     * @throws NullPointerException if {@code blob} is null
     */
    public static PeerDescriptor decode(byte[] blob) {
        Objects.requireNonNull(blob, "blob");
        checkSize(blob);
        ByteBuffer buf = ByteBuffer.wrap(blob).order(ByteOrder.LITTLE_ENDIAN);
        try {
            boolean signed = readHeader(buf);
            String keyId = signed ? readKeyId(buf) : null;
            String backend = readName(buf, "backend name");
            String fingerprint = readName(buf, "fingerprint");
            long base = buf.getLong();
            int blocks = buf.getInt();
            long blockLength = buf.getLong();
            int metadataLength = buf.getInt();
            if (metadataLength < 0 || metadataLength > MAX_METADATA_BYTES) {
                throw new MalformedPeerDescriptorException("metadata length out of range: " + metadataLength);
            }
            int trailer = 4 + (signed ? DeploymentKeyRing.MAC_BYTES : 0);
            if (metadataLength != buf.remaining() - trailer) {
                throw new MalformedPeerDescriptorException("metadata length " + metadataLength + " does not match the "
                        + (buf.remaining() - trailer) + " bytes left before the " + (signed ? "signature" : "checksum"));
            }
            byte[] metadata = new byte[metadataLength];
            buf.get(metadata);
            byte[] mac = null;
            if (signed) {
                mac = new byte[DeploymentKeyRing.MAC_BYTES];
                buf.get(mac);
            }
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
            PeerDescriptor fields = new PeerDescriptor(backend, fingerprint, base, blocks, blockLength, metadata);
            return signed ? new PeerDescriptor(fields, keyId, mac) : fields;
        } catch (BufferUnderflowException e) {
            throw new MalformedPeerDescriptorException("peer descriptor truncated at byte " + buf.position(), e);
        }
    }

    /**
     * Authenticates a blob from the network, then parses it as {@link #decode(byte[])} does. The
     * MAC is checked (in constant time) over the raw bytes right after the header and key id are
     * read, before any other field is parsed. Unsigned blobs are rejected: a deployment that opts
     * in to unsigned peers ({@link TransportConfig#acceptUnsignedPeers()}) decodes with
     * {@link #decode(byte[])} and lets {@code addPeer} apply its policy.
     *
     * @throws UnauthenticatedPeerException if the blob is unsigned, signed with a key not in
     *     {@code ring}, or changed after signing
     * @throws MalformedPeerDescriptorException if it is malformed
     * @throws NullPointerException if an argument is null
     */
    public static PeerDescriptor decode(byte[] blob, DeploymentKeyRing ring) {
        Objects.requireNonNull(blob, "blob");
        Objects.requireNonNull(ring, "ring");
        checkSize(blob);
        ByteBuffer buf = ByteBuffer.wrap(blob).order(ByteOrder.LITTLE_ENDIAN);
        try {
            if (!readHeader(buf)) {
                throw new UnauthenticatedPeerException(UnauthenticatedPeerException.Reason.UNSIGNED,
                        "peer descriptor is unsigned, and this deployment requires descriptors signed with its key ring "
                        + ring.keyIds());
            }
            String keyId = readKeyId(buf);
            int macOffset = blob.length - 4 - DeploymentKeyRing.MAC_BYTES;
            if (macOffset < buf.position()) {
                throw new MalformedPeerDescriptorException("signed peer descriptor truncated: " + blob.length + " bytes");
            }
            ring.verify(keyId, blob, 0, macOffset, blob, macOffset);
        } catch (BufferUnderflowException e) {
            throw new MalformedPeerDescriptorException("peer descriptor truncated at byte " + buf.position(), e);
        }
        return decode(blob);
    }

    private static void checkSize(byte[] blob) {
        if (blob.length < FIXED_BYTES) {
            throw new MalformedPeerDescriptorException(
                    "peer descriptor truncated: " + blob.length + " bytes, at least " + FIXED_BYTES + " needed");
        }
        if (blob.length > MAX_BLOB_BYTES) {
            throw new MalformedPeerDescriptorException("peer descriptor oversized: " + blob.length + " bytes");
        }
    }

    /** Reads magic, version and flags; returns whether the blob is signed. */
    private static boolean readHeader(ByteBuffer buf) {
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
        if ((flags & ~FLAG_SIGNED) != 0) {
            throw new MalformedPeerDescriptorException("unknown peer descriptor flags 0x" + Integer.toHexString(flags));
        }
        return flags == FLAG_SIGNED;
    }

    private static String readKeyId(ByteBuffer buf) {
        int length = Byte.toUnsignedInt(buf.get());
        if (length == 0 || length > DeploymentKeyRing.MAX_KEY_ID_LENGTH) {
            throw new MalformedPeerDescriptorException("key id length out of range: " + length);
        }
        byte[] bytes = new byte[length];
        buf.get(bytes);
        String id = new String(bytes, StandardCharsets.US_ASCII);
        if (!DeploymentKeyRing.isValidId(id)) {
            throw new MalformedPeerDescriptorException("key id holds a byte outside [A-Za-z0-9._-]");
        }
        return id;
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
                && Arrays.equals(metadata, p.metadata) && Objects.equals(keyId, p.keyId) && Arrays.equals(mac, p.mac);
    }

    @Override
    public int hashCode() {
        return (Objects.hash(backend, fingerprint, baseAddress, numBlocks, blockLength, keyId) * 31
                + Arrays.hashCode(metadata)) * 31 + Arrays.hashCode(mac);
    }

    @Override
    public String toString() {
        return "PeerDescriptor[" + backend + ", " + numBlocks + " x " + blockLength + " B at 0x"
                + Long.toHexString(baseAddress) + ", fingerprint '" + fingerprint + "', " + metadata.length
                + " B metadata" + (keyId == null ? "" : ", signed with key '" + keyId + "'") + "]";
    }
}
