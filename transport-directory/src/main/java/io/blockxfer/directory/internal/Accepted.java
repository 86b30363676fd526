package io.blockxfer.directory.internal;

import io.blockxfer.transport.PeerDescriptor;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * An entry that passed every check but the epoch's: its member, epoch, descriptor, the raw value
 * it came in (to tell a duplicate from a forgery of the same epoch), and a 64-bit digest of that
 * value, which {@link MemberTable} keeps for members that left instead of their bytes.
 *
 * <p><b>Thread safety:</b> immutable; the value is never handed out.
 */
public final class Accepted {

    private final String memberId;
    private final long epoch;
    private final PeerDescriptor descriptor;
    private final byte[] value;
    private final long revision;
    private final long digest;

    public Accepted(String memberId, long epoch, PeerDescriptor descriptor, byte[] value, long revision) {
        this.memberId = memberId;
        this.epoch = epoch;
        this.descriptor = descriptor;
        this.value = value;
        this.revision = revision;
        this.digest = digest(value);
    }

    /** The first 8 bytes of the SHA-256 of {@code value}. */
    static long digest(byte[] value) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(value);
            return ByteBuffer.wrap(h).getLong();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** A 64-bit digest of the value the entry came in. */
    public long digest() {
        return digest;
    }

    public String memberId() {
        return memberId;
    }

    public long epoch() {
        return epoch;
    }

    public PeerDescriptor descriptor() {
        return descriptor;
    }

    public long revision() {
        return revision;
    }

    /** Whether {@code a} and {@code b} are the same entry (both absent, or same epoch and bytes). */
    static boolean same(@Nullable Accepted a, @Nullable Accepted b) {
        if (a == null || b == null) {
            return a == b;
        }
        return a.epoch == b.epoch && Arrays.equals(a.value, b.value);
    }

    /** Whether this is the same entry as {@code value} at {@code epoch}. */
    public boolean sameAs(long otherEpoch, byte[] otherValue) {
        return epoch == otherEpoch && Arrays.equals(value, otherValue);
    }

    @Override
    public String toString() {
        return memberId + "@" + epoch;
    }
}
