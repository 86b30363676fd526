package io.blockxfer.directory;

import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.MalformedPeerDescriptorException;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.UnauthenticatedPeerException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * What a member publishes in the directory: its member id, a publication epoch, the lease it is
 * published under and its encoded {@link PeerDescriptor}, in one versioned, checksummed envelope
 * that is signed when a {@link DeploymentKeyRing} is given.
 *
 * <p><b>The lease</b> binds the entry to the publication that wrote it: the directory grants the
 * lease first and the entry names it ({@link Directory#publish(String, java.util.function.LongFunction,
 * java.time.Duration, PublicationListener)}), and a reader compares it with the lease the
 * directory reports for the key ({@link DirectoryEntry#lease()}). A copy of the entry written back
 * by anyone else (without a lease, or under another one) names a lease the key is not attached
 * to, and the member's own lease ends with the member: so a replayed entry is refused by every
 * reader, also by one that never saw the member. Under a key ring the lease is under the MAC; an
 * unsigned entry can name any lease (see the module README).
 *
 * <p><b>The epoch</b> orders a member's publications: a publication of a member id must carry a
 * higher epoch than every earlier one of that id, across restarts, so that a reader can refuse a
 * replayed or stale entry by its epoch alone. {@link Membership} takes the wall clock's
 * microseconds since 1970 at publication, raised where needed above the last epoch it issued in
 * this process and above the epoch of an entry it finds under its own id; a member id restarted
 * on a host whose clock was stepped back further than the restart took is refused as stale by the
 * readers that saw its previous epoch, until its clock passes that epoch.
 *
 * <p><b>The group</b>, when the member names one ({@code Membership.Builder.group}), is under the MAC
 * too: a reader that finds the entry under a group key ({@link DirectoryScope}) checks that the
 * entry names that group, so that no writer of the prefix can move a member into another group.
 *
 * <p><b>Wire format</b>, version {@value #VERSION}, little-endian: magic {@code "BXDE"}, u16 version,
 * u16 flags (bit 0: signed; bit 1: grouped), [signed only: u8 length + key id], u8 length + member id
 * (see {@link DirectoryLimits}), [grouped only: u8 length + group], i64 epoch (&gt; 0), i64 lease (&ge; 0; 0: bound to no lease, which no
 * reader accepts), i32 length + descriptor (at least one byte), [signed only: the
 * {@value DeploymentKeyRing#MAC_LENGTH}-byte MAC of everything before it, made by
 * {@link DeploymentKeyRing#sign(String, byte[])} in the domain {@value #MAC_DOMAIN}], u32 CRC-32C of
 * everything before it. Nothing may follow. Version 1 (without the lease) is refused as
 * unsupported: its entries cannot be told from replays. The MAC covers the member id, the epoch,
 * the lease and the key id as well as the descriptor, and its domain keeps it apart from descriptor signatures (which the
 * descriptor inside carries too, when its transport has a key ring). An entry adds
 * {@value #UNSIGNED_OVERHEAD} bytes plus the member id to its descriptor, and when signed the key
 * id and {@value #SIGNED_EXTRA} bytes more; the whole is at most
 * {@link DirectoryLimits#MAX_VALUE_BYTES}.
 *
 * <p><b>Thread safety:</b> immutable; {@link #descriptor()} returns a copy.
 */
public final class MemberEntry {

    /** The current wire format version. */
    public static final int VERSION = 2;
    /** The key ring domain of an entry's MAC. */
    public static final String MAC_DOMAIN = "blockxfer.directory.entry.v1";
    /** Bytes an unsigned entry adds to its descriptor besides the member id. */
    public static final int UNSIGNED_OVERHEAD = 4 + 2 + 2 + 1 + 8 + 8 + 4 + 4;
    /** Bytes a signed entry adds to an unsigned one besides the key id: its length and the MAC. */
    public static final int SIGNED_EXTRA = 1 + DeploymentKeyRing.MAC_LENGTH;

    private static final int MAGIC = 0x45445842; // "BXDE" little-endian
    private static final int FLAG_SIGNED = 1;
    private static final int FLAG_GROUPED = 2;
    private static final int MIN_BYTES = UNSIGNED_OVERHEAD + 1 + 1;

    private final String memberId;
    private final long epoch;
    private final long lease;
    private final byte[] descriptor;
    private final @Nullable String keyId;
    private final @Nullable String group;

    /**
     * An entry of {@code descriptor} (an encoded {@link PeerDescriptor}, copied) for
     * {@code memberId} at {@code epoch}, bound to no lease: a reader refuses it (see the class
     * comment); for values that are not read by a {@link Membership}.
     *
     * @throws IllegalArgumentException if the member id is malformed, the epoch not positive, or
     *     the descriptor empty or too large for an entry
     */
    public MemberEntry(String memberId, long epoch, byte[] descriptor) {
        this(memberId, epoch, 0, descriptor);
    }

    /**
     * An entry of {@code descriptor} (an encoded {@link PeerDescriptor}, copied) for
     * {@code memberId} at {@code epoch}, published under {@code lease}.
     *
     * @param lease the id of the lease the entry is published under (see {@link Publication#lease()});
     *     0 for none
     * @throws IllegalArgumentException if the member id is malformed, the epoch not positive, the
     *     lease negative, or the descriptor empty or too large for an entry
     */
    public MemberEntry(String memberId, long epoch, long lease, byte[] descriptor) {
        this(memberId, epoch, lease, null, descriptor);
    }

    /**
     * An entry of {@code descriptor} (an encoded {@link PeerDescriptor}, copied) for
     * {@code memberId} of {@code group} at {@code epoch}, published under {@code lease}.
     *
     * @param group the member's group, or null for none
     * @throws IllegalArgumentException if the member id or group is malformed, the epoch not
     *     positive, the lease negative, or the descriptor empty or too large for an entry
     */
    public MemberEntry(String memberId, long epoch, long lease, @Nullable String group, byte[] descriptor) {
        this(DirectoryLimits.checkMemberId(memberId), epoch, lease,
                Objects.requireNonNull(descriptor, "descriptor").clone(), null,
                group == null ? null : DirectoryLimits.checkGroup(group));
        if (epoch <= 0) {
            throw new IllegalArgumentException("epoch must be positive: " + epoch);
        }
        if (lease < 0) {
            throw new IllegalArgumentException("lease must not be negative: " + lease);
        }
        if (descriptor.length == 0) {
            throw new IllegalArgumentException("descriptor must not be empty");
        }
        int largest = DirectoryLimits.MAX_VALUE_BYTES - UNSIGNED_OVERHEAD - SIGNED_EXTRA - memberId.length()
                - DeploymentKeyRing.MAX_KEY_ID_LENGTH - (group == null ? 0 : 1 + group.length());
        if (descriptor.length > largest) {
            throw new IllegalArgumentException("descriptor of " + descriptor.length + " bytes is too large for a"
                    + " directory entry of member '" + memberId + "': at most " + largest + " bytes fit in the "
                    + DirectoryLimits.MAX_VALUE_BYTES + "-byte limit");
        }
    }

    private MemberEntry(String memberId, long epoch, long lease, byte[] descriptor, @Nullable String keyId,
            @Nullable String group) {
        this.memberId = memberId;
        this.epoch = epoch;
        this.lease = lease;
        this.descriptor = descriptor;
        this.keyId = keyId;
        this.group = group;
    }

    /** An entry of {@code descriptor}, encoded, for {@code memberId} at {@code epoch}, bound to no lease. */
    public static MemberEntry of(String memberId, long epoch, PeerDescriptor descriptor) {
        return new MemberEntry(memberId, epoch, 0, descriptor.encode());
    }

    /** An entry of {@code descriptor}, encoded, for {@code memberId} at {@code epoch}, published under {@code lease}. */
    public static MemberEntry of(String memberId, long epoch, long lease, PeerDescriptor descriptor) {
        return new MemberEntry(memberId, epoch, lease, descriptor.encode());
    }

    /**
     * An entry of {@code descriptor}, encoded, for {@code memberId} of {@code group} (null: none) at
     * {@code epoch}, published under {@code lease}.
     */
    public static MemberEntry of(String memberId, long epoch, long lease, @Nullable String group,
            PeerDescriptor descriptor) {
        return new MemberEntry(memberId, epoch, lease, group, descriptor.encode());
    }

    /** The group the member named, if any; a reader of a group key checks it against the key's. */
    public Optional<String> group() {
        return Optional.ofNullable(group);
    }

    /** The member id the entry claims; a reader checks it against the key it was found under. */
    public String memberId() {
        return memberId;
    }

    /** The publication epoch. */
    public long epoch() {
        return epoch;
    }

    /**
     * The id of the lease the entry was published under, which the key it is found under must be
     * attached to; 0 when bound to none.
     */
    public long lease() {
        return lease;
    }

    /** A copy of the encoded descriptor. */
    public byte[] descriptor() {
        return descriptor.clone();
    }

    /** The encoded descriptor's length, without copying it. */
    public int descriptorLength() {
        return descriptor.length;
    }

    /**
     * The id of the key the entry was signed with, when it was decoded from a signed envelope;
     * empty for an unsigned one and for an entry built here.
     */
    public Optional<String> keyId() {
        return Optional.ofNullable(keyId);
    }

    /**
     * Parses the descriptor inside (its own signature, if any, kept and not checked).
     *
     * @throws MalformedPeerDescriptorException if it is malformed
     */
    public PeerDescriptor peerDescriptor() {
        return PeerDescriptor.decode(descriptor);
    }

    /**
     * This entry as a directory value: signed with {@code ring}'s signing key when a ring is
     * given, unsigned otherwise.
     *
     * @throws IllegalArgumentException if the value would exceed {@link DirectoryLimits#MAX_VALUE_BYTES}
     */
    public byte[] encode(@Nullable DeploymentKeyRing ring) {
        byte[] id = memberId.getBytes(StandardCharsets.US_ASCII);
        byte[] key = ring == null ? new byte[0] : ring.signingKeyId().getBytes(StandardCharsets.US_ASCII);
        byte[] groupBytes = group == null ? null : group.getBytes(StandardCharsets.US_ASCII);
        int signedHeader = ring == null ? 0 : 1 + key.length;
        int macLength = ring == null ? 0 : DeploymentKeyRing.MAC_LENGTH;
        int length = UNSIGNED_OVERHEAD + id.length + descriptor.length + signedHeader + macLength
                + (groupBytes == null ? 0 : 1 + groupBytes.length);
        if (length > DirectoryLimits.MAX_VALUE_BYTES) {
            throw new IllegalArgumentException("entry of member '" + memberId + "' would have " + length
                    + " bytes, above the directory's limit of " + DirectoryLimits.MAX_VALUE_BYTES);
        }
        ByteBuffer buf = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        int flags = (ring == null ? 0 : FLAG_SIGNED) | (groupBytes == null ? 0 : FLAG_GROUPED);
        buf.putInt(MAGIC).putShort((short) VERSION).putShort((short) flags);
        if (ring != null) {
            buf.put((byte) key.length).put(key);
        }
        buf.put((byte) id.length).put(id);
        if (groupBytes != null) {
            buf.put((byte) groupBytes.length).put(groupBytes);
        }
        buf.putLong(epoch).putLong(lease).putInt(descriptor.length).put(descriptor);
        byte[] value = buf.array();
        if (ring != null) {
            buf.put(ring.sign(MAC_DOMAIN, Arrays.copyOf(value, buf.position())));
        }
        CRC32C crc = new CRC32C();
        crc.update(value, 0, buf.position());
        buf.putInt((int) crc.getValue());
        return value;
    }

    /**
     * Checks and parses a directory value. In this order, each before anything further is read:
     * the size (at most {@link DirectoryLimits#MAX_VALUE_BYTES}), the checksum, the magic, version
     * and flags; with a ring, the signature (an unsigned entry is refused; the MAC is compared in
     * constant time under the key the entry names); then every field, strictly. Without a ring a
     * signature is kept (see {@link #keyId()}) but not checked. The descriptor inside is not parsed
     * (see {@link #peerDescriptor()}).
     *
     * @throws MalformedEntryException if the value is oversized or not a well-formed version-1 entry
     * @throws UnauthenticatedPeerException with a ring, if the entry is unsigned, signed with a key
     *     not in the ring, or changed after signing
     * @throws NullPointerException if {@code value} is null
     */
    public static MemberEntry decode(byte[] value, @Nullable DeploymentKeyRing ring) {
        Objects.requireNonNull(value, "value");
        if (value.length > DirectoryLimits.MAX_VALUE_BYTES) {
            throw new MalformedEntryException("directory entry oversized: " + value.length + " bytes, the limit is "
                    + DirectoryLimits.MAX_VALUE_BYTES);
        }
        if (value.length < MIN_BYTES) {
            throw new MalformedEntryException("directory entry truncated: " + value.length + " bytes, at least "
                    + MIN_BYTES + " needed");
        }
        ByteBuffer buf = ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN);
        int end = value.length - 4;
        CRC32C crc = new CRC32C();
        crc.update(value, 0, end);
        int stored = buf.getInt(end);
        if (stored != (int) crc.getValue()) {
            throw new MalformedEntryException("directory entry checksum mismatch: stored 0x"
                    + Integer.toHexString(stored) + ", computed 0x" + Long.toHexString(crc.getValue()));
        }
        try {
            int flags = readHeader(buf);
            boolean signed = (flags & FLAG_SIGNED) != 0;
            String keyId = signed ? readKeyId(buf) : null;
            if (ring != null) {
                if (keyId == null) {
                    throw new UnauthenticatedPeerException(UnauthenticatedPeerException.Reason.UNSIGNED,
                            "directory entry is unsigned, and this deployment requires entries signed with its key"
                            + " ring " + ring.keyIds());
                }
                int macOffset = end - DeploymentKeyRing.MAC_LENGTH;
                if (macOffset < buf.position()) {
                    throw new MalformedEntryException("signed directory entry truncated: " + value.length + " bytes");
                }
                ring.verify(MAC_DOMAIN, keyId, Arrays.copyOf(value, macOffset), Arrays.copyOfRange(value, macOffset,
                        end));
            }
            String memberId = readMemberId(buf);
            String group = (flags & FLAG_GROUPED) != 0 ? readGroup(buf) : null;
            long epoch = buf.getLong();
            if (epoch <= 0) {
                throw new MalformedEntryException("directory entry of '" + memberId + "' has a non-positive epoch "
                        + epoch);
            }
            long lease = buf.getLong();
            if (lease < 0) {
                throw new MalformedEntryException("directory entry of '" + memberId + "' has a negative lease "
                        + lease);
            }
            int length = buf.getInt();
            int trailer = signed ? DeploymentKeyRing.MAC_LENGTH : 0;
            int left = end - trailer - buf.position();
            if (length <= 0 || length != left) {
                throw new MalformedEntryException("directory entry of '" + memberId + "' declares a descriptor of "
                        + length + " bytes, but " + left + " bytes are left before the "
                        + (signed ? "MAC" : "checksum"));
            }
            byte[] descriptor = new byte[length];
            buf.get(descriptor);
            return new MemberEntry(memberId, epoch, lease, descriptor, keyId, group);
        } catch (BufferUnderflowException e) {
            throw new MalformedEntryException("directory entry truncated at byte " + buf.position(), e);
        }
    }

    private static int readHeader(ByteBuffer buf) {
        int magic = buf.getInt();
        if (magic != MAGIC) {
            throw new MalformedEntryException("not a blockxfer directory entry: magic 0x" + Integer.toHexString(magic));
        }
        int version = Short.toUnsignedInt(buf.getShort());
        if (version == 1) {
            throw new MalformedEntryException("unsupported directory entry version 1: it names no lease, so it"
                    + " cannot be told from a replay (this build reads version " + VERSION + "; run one version of"
                    + " blockxfer per prefix)");
        }
        if (version != VERSION) {
            throw new MalformedEntryException("unsupported directory entry version " + version + " (this build reads "
                    + VERSION + ")");
        }
        int flags = Short.toUnsignedInt(buf.getShort());
        if ((flags & ~(FLAG_SIGNED | FLAG_GROUPED)) != 0) {
            throw new MalformedEntryException("unknown directory entry flags 0x" + Integer.toHexString(flags));
        }
        return flags;
    }

    private static String readGroup(ByteBuffer buf) {
        int length = Byte.toUnsignedInt(buf.get());
        if (length == 0 || length > DirectoryLimits.MAX_GROUP_LENGTH) {
            throw new MalformedEntryException("group length out of range: " + length);
        }
        String group = ascii(buf, length);
        if (!DirectoryLimits.isValidGroup(group)) {
            throw new MalformedEntryException("group is malformed: '" + DirectoryLimits.printable(group) + "'");
        }
        return group;
    }

    private static String readKeyId(ByteBuffer buf) {
        int length = Byte.toUnsignedInt(buf.get());
        if (length == 0 || length > DeploymentKeyRing.MAX_KEY_ID_LENGTH) {
            throw new MalformedEntryException("key id length out of range: " + length);
        }
        String id = ascii(buf, length);
        if (!id.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw new MalformedEntryException("key id holds a non-printable byte");
        }
        return id;
    }

    private static String readMemberId(ByteBuffer buf) {
        int length = Byte.toUnsignedInt(buf.get());
        if (length == 0 || length > DirectoryLimits.MAX_MEMBER_ID_LENGTH) {
            throw new MalformedEntryException("member id length out of range: " + length);
        }
        String id = ascii(buf, length);
        if (!DirectoryLimits.isValidMemberId(id)) {
            throw new MalformedEntryException("member id is malformed: '" + DirectoryLimits.printable(id) + "'");
        }
        return id;
    }

    private static String ascii(ByteBuffer buf, int length) {
        byte[] bytes = new byte[length];
        buf.get(bytes);
        for (byte b : bytes) {
            if (b < 0) {
                throw new MalformedEntryException("a name holds a non-ASCII byte");
            }
        }
        return new String(bytes, StandardCharsets.US_ASCII);
    }

    /** Equal when member id, group, epoch, lease, descriptor bytes and signing key id are. */
    @Override
    public boolean equals(Object o) {
        return o instanceof MemberEntry e && memberId.equals(e.memberId) && epoch == e.epoch && lease == e.lease
                && Arrays.equals(descriptor, e.descriptor) && Objects.equals(keyId, e.keyId)
                && Objects.equals(group, e.group);
    }

    @Override
    public int hashCode() {
        return (Objects.hash(memberId, epoch, lease, keyId, group) * 31) + Arrays.hashCode(descriptor);
    }

    @Override
    public String toString() {
        return "MemberEntry[" + memberId + (group == null ? "" : " of group '" + group + "'") + ", epoch " + epoch + ", lease " + Long.toHexString(lease) + ", "
                + descriptor.length + " B descriptor"
                + (keyId == null ? "" : ", signed with key '" + keyId + "'") + "]";
    }
}
