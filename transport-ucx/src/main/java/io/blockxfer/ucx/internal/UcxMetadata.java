package io.blockxfer.ucx.internal;

import io.blockxfer.transport.IncompatiblePeerException;
import io.blockxfer.transport.MalformedPeerDescriptorException;
import io.blockxfer.transport.PeerDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * The agent metadata a UCX transport publishes: what a remote needs to reach its worker and write
 * into its registered memory.
 *
 * <p>Layout, version 1, little-endian: magic {@code "BXUC"}, u16 version, u16 flags (0), u64 address
 * and u64 length of the registered memory, u32 length + packed worker address (1 to
 * {@value #MAX_ADDRESS_BYTES} bytes), u32 length + packed remote key (9 to {@value #MAX_RKEY_BYTES}
 * bytes), u32 CRC-32C of everything before it. Nothing may follow. The checksum catches garbling in
 * transit; {@link UcpWorkerAddress} and {@link PackedRkey} check UCX's own formats field by field,
 * before a byte reaches UCX.
 *
 * <p><b>Thread safety:</b> immutable; accessors return copies.
 */
public final class UcxMetadata {

    /** The largest packed worker address accepted. */
    public static final int MAX_ADDRESS_BYTES = 16 * 1024;
    /** The largest packed remote key accepted. */
    public static final int MAX_RKEY_BYTES = 4 * 1024;

    private static final int MAGIC = 0x43555842; // "BXUC" little-endian
    private static final int VERSION = 1;
    private static final int FIXED_BYTES = 4 + 2 + 2 + 8 + 8 + 4 + 4 + 4;

    private final long memoryAddress;
    private final long memoryLength;
    private final byte[] workerAddress;
    private final byte[] rkey;
    private final @Nullable UcpWorkerAddress address;
    private final @Nullable PackedRkey packedRkey;

    UcxMetadata(long memoryAddress, long memoryLength, byte[] workerAddress, byte[] rkey) {
        this(memoryAddress, memoryLength, workerAddress, rkey, null, null);
    }

    private UcxMetadata(long memoryAddress, long memoryLength, byte[] workerAddress, byte[] rkey,
            @Nullable UcpWorkerAddress address, @Nullable PackedRkey packedRkey) {
        this.memoryAddress = memoryAddress;
        this.memoryLength = memoryLength;
        this.workerAddress = workerAddress.clone();
        this.rkey = rkey.clone();
        this.address = address;
        this.packedRkey = packedRkey;
    }

    /** The parsed worker address (metadata from {@link #decode} only). */
    UcpWorkerAddress address() {
        if (address == null) {
            throw new IllegalStateException("metadata built locally is not parsed");
        }
        return address;
    }

    /** The parsed remote key (metadata from {@link #decode} only). */
    PackedRkey packedRkey() {
        if (packedRkey == null) {
            throw new IllegalStateException("metadata built locally is not parsed");
        }
        return packedRkey;
    }

    /** The native address of the registered memory. */
    public long memoryAddress() {
        return memoryAddress;
    }

    /** The length of the registered memory in bytes. */
    public long memoryLength() {
        return memoryLength;
    }

    /** A copy of the packed worker address. */
    public byte[] workerAddress() {
        return workerAddress.clone();
    }

    /** A copy of the packed remote key. */
    public byte[] rkey() {
        return rkey.clone();
    }

    /** The metadata as bytes. */
    public byte[] encode() {
        ByteBuffer buf = ByteBuffer.allocate(FIXED_BYTES + workerAddress.length + rkey.length)
                .order(ByteOrder.LITTLE_ENDIAN);
        buf.putInt(MAGIC).putShort((short) VERSION).putShort((short) 0);
        buf.putLong(memoryAddress).putLong(memoryLength);
        buf.putInt(workerAddress.length).put(workerAddress);
        buf.putInt(rkey.length).put(rkey);
        CRC32C crc = new CRC32C();
        crc.update(buf.array(), 0, buf.position());
        buf.putInt((int) crc.getValue());
        return buf.array();
    }

    /**
     * Parses and checks metadata of peer {@code peerId}.
     *
     * @throws MalformedPeerDescriptorException for anything but well-formed version-1 metadata
     */
    public static UcxMetadata decode(String peerId, byte[] bytes) {
        String who = "UCX metadata of peer '" + peerId + "'";
        if (bytes.length < FIXED_BYTES) {
            throw new MalformedPeerDescriptorException(who + " is truncated: " + bytes.length + " bytes, at least "
                    + FIXED_BYTES + " needed");
        }
        ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int magic = buf.getInt();
        int version = Short.toUnsignedInt(buf.getShort());
        int flags = Short.toUnsignedInt(buf.getShort());
        if (magic != MAGIC) {
            throw new MalformedPeerDescriptorException(who + " has a bad magic 0x" + Integer.toHexString(magic)
                    + " (not produced by the ucx backend)");
        }
        if (version != VERSION || flags != 0) {
            throw new MalformedPeerDescriptorException(who + " has version " + version + " flags " + flags
                    + "; this backend reads version " + VERSION + " flags 0");
        }
        long address = buf.getLong();
        long length = buf.getLong();
        byte[] worker = lengthPrefixed(buf, who, "worker address", 1, MAX_ADDRESS_BYTES);
        byte[] key = lengthPrefixed(buf, who, "remote key", 9, MAX_RKEY_BYTES);
        if (buf.remaining() != 4) {
            throw new MalformedPeerDescriptorException(who + " has " + (buf.remaining() - 4)
                    + " bytes after its remote key; expected only the checksum");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, buf.position());
        int stored = buf.getInt();
        if (stored != (int) crc.getValue()) {
            throw new MalformedPeerDescriptorException(who + " fails its checksum: stored 0x"
                    + Integer.toHexString(stored) + ", computed 0x" + Long.toHexString(crc.getValue()));
        }
        if (address <= 0 || length <= 0 || address > Long.MAX_VALUE - length) {
            throw new MalformedPeerDescriptorException(who + " describes an impossible memory range: "
                    + length + " bytes at 0x" + Long.toHexString(address));
        }
        UcpWorkerAddress parsedAddress;
        PackedRkey parsedKey;
        try {
            parsedAddress = UcpWorkerAddress.parse(worker);
            parsedKey = PackedRkey.parse(key, parsedAddress);
        } catch (IllegalArgumentException e) {
            throw new MalformedPeerDescriptorException(who + ": " + e.getMessage(), e);
        }
        return new UcxMetadata(address, length, worker, key, parsedAddress, parsedKey);
    }

    private static byte[] lengthPrefixed(ByteBuffer buf, String who, String what, int min, int max) {
        if (buf.remaining() < 4) {
            throw new MalformedPeerDescriptorException(who + " is truncated before its " + what + " length");
        }
        int n = buf.getInt();
        if (n < min || n > max) {
            throw new MalformedPeerDescriptorException(who + " has a " + what + " length of " + n + " bytes; expected "
                    + min + " to " + max);
        }
        if (n > buf.remaining()) {
            throw new MalformedPeerDescriptorException(who + " is truncated: its " + what + " of " + n
                    + " bytes overruns the " + buf.remaining() + " bytes left");
        }
        byte[] b = new byte[n];
        buf.get(b);
        return b;
    }

    /**
     * Checks that the region {@code peer} advertises lies inside the memory this metadata registered,
     * so no put can land outside it.
     *
     * @throws IncompatiblePeerException if it does not
     */
    public void checkCovers(String peerId, PeerDescriptor peer) {
        long base = peer.baseAddress();
        long size = (long) peer.numBlocks() * peer.blockLength(); // PeerDescriptor bounds this below 2^62
        long end = memoryAddress + memoryLength;
        if (base < memoryAddress || base > end || size > end - base) {
            throw new IncompatiblePeerException("descriptor of peer '" + peerId + "' claims " + peer.numBlocks() + " x "
                    + peer.blockLength() + " B at 0x" + Long.toHexString(base) + ", outside the " + memoryLength
                    + " bytes at 0x" + Long.toHexString(memoryAddress) + " the peer registered with UCX");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof UcxMetadata m && m.memoryAddress == memoryAddress && m.memoryLength == memoryLength
                && Arrays.equals(m.workerAddress, workerAddress) && Arrays.equals(m.rkey, rkey);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(memoryAddress) * 31 + Arrays.hashCode(rkey);
    }

    @Override
    public String toString() {
        return "UcxMetadata[" + memoryLength + " B at 0x" + Long.toHexString(memoryAddress) + ", worker address "
                + workerAddress.length + " B, rkey " + rkey.length + " B]";
    }
}
