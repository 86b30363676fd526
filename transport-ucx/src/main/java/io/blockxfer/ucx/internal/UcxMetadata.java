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
 * <p>Layout, version 1, little-endian: magic {@code "BXUC"}, u16 version, u16 flags, u64 address
 * and u64 length of the registered memory, u32 length + packed worker address (1 to
 * {@value #MAX_ADDRESS_BYTES} bytes), u32 length + packed remote key (9 to {@value #MAX_RKEY_BYTES}
 * bytes), with flag {@value #FLAG_LISTENER} the transport's listener for peers on other hosts (u16
 * port, 1 to 65535; u8 address length, 0, 4 or 16; the IPv4 or IPv6 address it is bound to, none
 * when it listens on every interface: then its TCP interfaces are those of the worker address), u32
 * CRC-32C of everything before it. Flag {@value #FLAG_NOTIFICATION_BUNDLES} says that the transport
 * takes notifications in bundles (several frames in one active message); a peer without it gets
 * one frame a message. No other flag is defined and nothing may follow: a build that does not know
 * a flag refuses the metadata, so a peer that would send it bundles it cannot take is refused
 * before anything is sent. The checksum
 * catches garbling in transit; {@link UcpWorkerAddress} and {@link PackedRkey} check UCX's own
 * formats field by field, before a byte reaches UCX.
 *
 * <p><b>Thread safety:</b> immutable; accessors return copies.
 */
public final class UcxMetadata {

    /** The largest packed worker address accepted. */
    public static final int MAX_ADDRESS_BYTES = 16 * 1024;
    /** The largest packed remote key accepted. */
    public static final int MAX_RKEY_BYTES = 4 * 1024;

    /** The flag of metadata that carries a listener. */
    static final int FLAG_LISTENER = 1;
    /** The flag of metadata whose transport takes notifications in bundles. */
    static final int FLAG_NOTIFICATION_BUNDLES = 2;
    private static final int KNOWN_FLAGS = FLAG_LISTENER | FLAG_NOTIFICATION_BUNDLES;

    private static final int MAGIC = 0x43555842; // "BXUC" little-endian
    private static final int VERSION = 1;
    private static final int FIXED_BYTES = 4 + 2 + 2 + 8 + 8 + 4 + 4 + 4;

    /**
     * Where a transport listens for peers on other hosts.
     *
     * <p><b>Thread safety:</b> immutable; the accessor of the address returns a copy.
     *
     * @param port the port, 1 to 65535
     * @param boundAddress the IPv4 (4 bytes) or IPv6 (16 bytes) address the listener is bound to,
     *     or empty when it listens on every interface
     */
    @SuppressWarnings("ArrayRecordComponent") // compared and hashed through the metadata's own equals
    record Listener(int port, byte[] boundAddress) {
        Listener {
            if (port < 1 || port > 65535 || (boundAddress.length != 0 && boundAddress.length != 4
                    && boundAddress.length != 16)) {
                throw new IllegalArgumentException("a listener is a port of 1 to 65535 and an address of 0, 4 or 16"
                        + " bytes, not port " + port + " and " + boundAddress.length + " bytes");
            }
            boundAddress = boundAddress.clone();
        }

        @Override
        public byte[] boundAddress() {
            return boundAddress.clone();
        }

        /** Whether the listener takes connections on every interface. */
        boolean everyInterface() {
            return boundAddress.length == 0;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Listener l && l.port == port && Arrays.equals(l.boundAddress, boundAddress);
        }

        @Override
        public int hashCode() {
            return port * 31 + Arrays.hashCode(boundAddress);
        }

        @Override
        public String toString() {
            return (everyInterface() ? "*" : PeerListener.describe(boundAddress)) + ":" + port;
        }
    }

    private final long memoryAddress;
    private final long memoryLength;
    private final byte[] workerAddress;
    private final byte[] rkey;
    private final @Nullable Listener listener;
    private final @Nullable UcpWorkerAddress address;
    private final @Nullable PackedRkey packedRkey;
    private final boolean takesNotificationBundles;

    /** This build's metadata: it takes notification bundles. */
    UcxMetadata(long memoryAddress, long memoryLength, byte[] workerAddress, byte[] rkey) {
        this(memoryAddress, memoryLength, workerAddress, rkey, null);
    }

    /** This build's metadata with a listener: it takes notification bundles. */
    UcxMetadata(long memoryAddress, long memoryLength, byte[] workerAddress, byte[] rkey,
            @Nullable Listener listener) {
        this(memoryAddress, memoryLength, workerAddress, rkey, listener, null, null, true);
    }

    private UcxMetadata(long memoryAddress, long memoryLength, byte[] workerAddress, byte[] rkey,
            @Nullable Listener listener, @Nullable UcpWorkerAddress address, @Nullable PackedRkey packedRkey,
            boolean takesNotificationBundles) {
        this.takesNotificationBundles = takesNotificationBundles;
        this.memoryAddress = memoryAddress;
        this.memoryLength = memoryLength;
        this.workerAddress = workerAddress.clone();
        this.rkey = rkey.clone();
        this.listener = listener;
        this.address = address;
        this.packedRkey = packedRkey;
    }

    /** Whether the transport takes notifications in bundles (metadata without the flag: one frame a message). */
    boolean takesNotificationBundles() {
        return takesNotificationBundles;
    }

    /** The same metadata as a transport that takes one notification frame a message publishes it. */
    UcxMetadata withoutNotificationBundles() {
        return new UcxMetadata(memoryAddress, memoryLength, workerAddress, rkey, listener, address, packedRkey,
                false);
    }

    /** Where the transport listens for peers on other hosts, or null when it does not. */
    @Nullable Listener listener() {
        return listener;
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
        Listener l = listener;
        int listenerBytes = l == null ? 0 : 2 + 1 + l.boundAddress.length;
        ByteBuffer buf = ByteBuffer.allocate(FIXED_BYTES + workerAddress.length + rkey.length + listenerBytes)
                .order(ByteOrder.LITTLE_ENDIAN);
        int flags = (l == null ? 0 : FLAG_LISTENER) | (takesNotificationBundles ? FLAG_NOTIFICATION_BUNDLES : 0);
        buf.putInt(MAGIC).putShort((short) VERSION).putShort((short) flags);
        buf.putLong(memoryAddress).putLong(memoryLength);
        buf.putInt(workerAddress.length).put(workerAddress);
        buf.putInt(rkey.length).put(rkey);
        if (l != null) {
            buf.putShort((short) l.port).put((byte) l.boundAddress.length).put(l.boundAddress);
        }
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
        if (version != VERSION || (flags & ~KNOWN_FLAGS) != 0) {
            throw new MalformedPeerDescriptorException(who + " has version " + version + " flags " + flags
                    + "; this backend reads version " + VERSION + " with flags " + FLAG_LISTENER + " (a listener) and "
                    + FLAG_NOTIFICATION_BUNDLES + " (takes notification bundles), no other");
        }
        long address = buf.getLong();
        long length = buf.getLong();
        byte[] worker = lengthPrefixed(buf, who, "worker address", 1, MAX_ADDRESS_BYTES);
        byte[] key = lengthPrefixed(buf, who, "remote key", 9, MAX_RKEY_BYTES);
        Listener listener = null;
        if ((flags & FLAG_LISTENER) != 0) {
            if (buf.remaining() < 4 + 3) {
                throw new MalformedPeerDescriptorException(who + " is truncated before its listener");
            }
            int port = Short.toUnsignedInt(buf.getShort());
            int n = Byte.toUnsignedInt(buf.get());
            if (port == 0 || (n != 0 && n != 4 && n != 16)) {
                throw new MalformedPeerDescriptorException(who + " has a listener at port " + port + " with a "
                        + n + "-byte address; expected a port of 1 to 65535 and 0, 4 or 16 bytes");
            }
            if (buf.remaining() < n + 4) {
                throw new MalformedPeerDescriptorException(who + " is truncated in its listener's address");
            }
            byte[] bound = new byte[n];
            buf.get(bound);
            listener = new Listener(port, bound);
        }
        if (buf.remaining() != 4) {
            throw new MalformedPeerDescriptorException(who + " has " + (buf.remaining() - 4) + " bytes after its "
                    + (listener == null ? "remote key" : "listener") + "; expected only the checksum");
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
        return new UcxMetadata(address, length, worker, key, listener, parsedAddress, parsedKey,
                (flags & FLAG_NOTIFICATION_BUNDLES) != 0);
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
                && Arrays.equals(m.workerAddress, workerAddress) && Arrays.equals(m.rkey, rkey)
                && java.util.Objects.equals(m.listener, listener)
                && m.takesNotificationBundles == takesNotificationBundles;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(memoryAddress) * 31 + Arrays.hashCode(rkey);
    }

    @Override
    public String toString() {
        return "UcxMetadata[" + memoryLength + " B at 0x" + Long.toHexString(memoryAddress) + ", worker address "
                + workerAddress.length + " B, rkey " + rkey.length + " B" + (listener == null ? ""
                        : ", listener " + listener) + "]";
    }
}
