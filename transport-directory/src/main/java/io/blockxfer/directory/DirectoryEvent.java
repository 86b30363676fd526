package io.blockxfer.directory;

import java.util.Arrays;
import java.util.Objects;

/**
 * A change under a watch's prefix: a key was put (created or overwritten) or deleted, at a
 * revision. A delete covers every way a key goes: a goodbye (its publication closed), an expired or
 * revoked lease, or a plain delete by someone else.
 *
 * <p>An event found by a resync ({@link #isResync()}) is a difference between what the watch had
 * delivered and a fresh listing, not one change the directory reported: a put then carries the
 * entry's last-write revision, a delete the listing's revision (when the key went is unknown), and
 * changes in between are folded into it.
 *
 * <p><b>Thread safety:</b> immutable; {@link #value()} returns a copy.
 */
public final class DirectoryEvent {

    /** What happened to the key. <b>Thread safety:</b> an enum; immutable. */
    public enum Type {
        /** The key was created or overwritten; {@link #value()} holds its new value. */
        PUT,
        /** The key was deleted; {@link #value()} is empty. */
        DELETE
    }

    private static final byte[] EMPTY = new byte[0];

    private final Type type;
    private final String key;
    private final byte[] value;
    private final long revision;
    private final long lease;
    private final boolean resync;

    private DirectoryEvent(Type type, String key, byte[] value, long revision, long lease, boolean resync) {
        this.type = type;
        this.key = Objects.requireNonNull(key, "key");
        this.value = value;
        if (revision <= 0) {
            throw new IllegalArgumentException("revision must be positive: " + revision);
        }
        if (lease < 0) {
            throw new IllegalArgumentException("lease must not be negative: " + lease);
        }
        this.revision = revision;
        this.lease = lease;
        this.resync = resync;
    }

    /** A put of {@code value} (copied) at {@code revision}, of a key attached to no lease. */
    public static DirectoryEvent put(String key, byte[] value, long revision, boolean resync) {
        return put(key, value, revision, 0, resync);
    }

    /**
     * A put of {@code value} (copied) at {@code revision}, of a key attached to {@code lease} (0:
     * none).
     *
     * @throws IllegalArgumentException if the revision is not positive or the lease negative
     */
    public static DirectoryEvent put(String key, byte[] value, long revision, long lease, boolean resync) {
        return new DirectoryEvent(Type.PUT, key, Objects.requireNonNull(value, "value").clone(), revision, lease,
                resync);
    }

    /** A delete at {@code revision}. */
    public static DirectoryEvent delete(String key, long revision, boolean resync) {
        return new DirectoryEvent(Type.DELETE, key, EMPTY, revision, 0, resync);
    }

    /** Put or delete. */
    public Type type() {
        return type;
    }

    /** The full key, the prefix included. */
    public String key() {
        return key;
    }

    /** A copy of the new value of a put (it may be anything); empty for a delete. */
    public byte[] value() {
        return value.length == 0 ? EMPTY : value.clone();
    }

    /** The value's length, without copying it. */
    public int valueLength() {
        return value.length;
    }

    /**
     * The revision of the change: positive, and, within one watch, never below an earlier event's
     * or the snapshot's (see {@link DirectoryListener} for the exact order).
     */
    public long revision() {
        return revision;
    }

    /**
     * The lease the key is attached to after a put, as the directory reports it (etcd's lease
     * id); 0 when none (a plain put), and for a delete.
     */
    public long lease() {
        return lease;
    }

    /** Whether a resync found this difference (after a reconnect that could not resume). */
    public boolean isResync() {
        return resync;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DirectoryEvent e && type == e.type && key.equals(e.key) && revision == e.revision
                && lease == e.lease && resync == e.resync && Arrays.equals(value, e.value);
    }

    @Override
    public int hashCode() {
        return ((type.hashCode() * 31 + key.hashCode()) * 31 + Long.hashCode(revision)) * 31 + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return type + "[" + DirectoryLimits.printable(key) + (type == Type.PUT ? ", " + value.length + " B" : "")
                + (lease == 0 ? "" : ", lease " + Long.toHexString(lease)) + ", revision " + revision + (resync ? ", resync" : "") + "]";
    }
}
