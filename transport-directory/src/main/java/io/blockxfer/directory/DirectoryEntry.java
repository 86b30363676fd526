package io.blockxfer.directory;

import java.util.Arrays;
import java.util.Objects;

/**
 * One key of a directory listing with its value, the revision at which it was last written, and
 * the lease the key is attached to (0 when none).
 *
 * <p><b>Thread safety:</b> immutable; {@link #value()} returns a copy.
 */
public final class DirectoryEntry {

    private final String key;
    private final byte[] value;
    private final long revision;
    private final long lease;

    /**
     * An entry of a listing whose key is attached to no lease.
     *
     * @param key the full key, the prefix included
     * @param value the value as stored; copied
     * @param revision the revision of the entry's last write (etcd's mod revision); positive
     * @throws IllegalArgumentException if the revision is not positive
     */
    public DirectoryEntry(String key, byte[] value, long revision) {
        this(key, value, revision, 0);
    }

    /**
     * An entry of a listing.
     *
     * @param key the full key, the prefix included
     * @param value the value as stored; copied
     * @param revision the revision of the entry's last write (etcd's mod revision); positive
     * @param lease the lease the key is attached to (etcd's {@code KeyValue.getLease()}); 0 when none
     * @throws IllegalArgumentException if the revision is not positive or the lease negative
     */
    public DirectoryEntry(String key, byte[] value, long revision, long lease) {
        this.key = Objects.requireNonNull(key, "key");
        this.value = Objects.requireNonNull(value, "value").clone();
        if (revision <= 0) {
            throw new IllegalArgumentException("revision must be positive: " + revision);
        }
        if (lease < 0) {
            throw new IllegalArgumentException("lease must not be negative: " + lease);
        }
        this.revision = revision;
        this.lease = lease;
    }

    /** The full key, the prefix included. */
    public String key() {
        return key;
    }

    /** A copy of the value, as stored (it may be anything: a directory is written by others too). */
    public byte[] value() {
        return value.clone();
    }

    /** The value's length, without copying it. */
    public int valueLength() {
        return value.length;
    }

    /** The revision of the entry's last write. */
    public long revision() {
        return revision;
    }

    /**
     * The lease the key is attached to, as the directory reports it (etcd's lease id); 0 when the
     * key belongs to no lease (written by a plain put). A publication's entry is attached to the
     * publication's {@link Publication#lease()}.
     */
    public long lease() {
        return lease;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DirectoryEntry e && key.equals(e.key) && revision == e.revision && lease == e.lease
                && Arrays.equals(value, e.value);
    }

    @Override
    public int hashCode() {
        return ((key.hashCode() * 31 + Long.hashCode(revision)) * 31 + Long.hashCode(lease)) * 31
                + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "DirectoryEntry[" + DirectoryLimits.printable(key) + ", " + value.length + " B, revision " + revision
                + (lease == 0 ? ", no lease" : ", lease " + Long.toHexString(lease)) + "]";
    }
}
