package io.blockxfer.holds;

import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Blocks of this process's region held for one peer ({@link Holds#create}): the owner's handle.
 * The hold lives while its holder renews it within its TTL; it ends exactly once, for one
 * {@link HoldEnd.Reason}, and {@link Holds#pollEnded} then reports it with its blocks. Until then the
 * owner must not reuse the blocks.
 *
 * <p><b>Thread safety:</b> thread-safe; the state is guarded by its {@link Holds}'s lock.
 */
public final class Hold {

    final OwnerSide side;
    final long id;
    final String peer;
    final int[] blocks;
    final long ttlNanos;
    final long createdAt;
    /** When the hold ends whatever its renewals; {@code Long.MAX_VALUE} for no limit. */
    final long lifetimeEnd;
    /** The owner's deadline: the hold expires when the clock passes it. Guarded by the side's lock. */
    long deadline;
    /** The deadline it is queued under in the expiry queue. Guarded by the side's lock. */
    long queuedDeadline;
    /** Whether it is in the expiry queue. Guarded by the side's lock. */
    boolean queued;
    /** Its place in the order of creation, from 1. */
    final long seq;
    /** Renewals granted. Guarded by the side's lock. */
    long renewals;
    /** Whether the owner cancelled it: no renewals, ends when its holder lets go or its deadline passes. */
    boolean cancelling;
    /** The end, once decided; written under the side's lock. */
    volatile @Nullable HoldEnd end;
    /** Neighbours in its peer's list. Guarded by the side's lock. */
    @Nullable Hold prev;
    @Nullable Hold next;

    Hold(OwnerSide side, long seq, long id, String peer, int[] blocks, long ttlNanos, long createdAt,
            long lifetimeEnd) {
        this.side = side;
        this.seq = seq;
        this.id = id;
        this.peer = peer;
        this.blocks = blocks;
        this.ttlNanos = ttlNanos;
        this.createdAt = createdAt;
        this.lifetimeEnd = lifetimeEnd;
        this.deadline = createdAt + ttlNanos;
        this.queuedDeadline = deadline;
    }

    /** The hold's id: random, unique among this owner's holds; the holder names the hold by it. */
    public long id() {
        return id;
    }

    /** The peer the blocks are held for, as this process's transport knows it. */
    public String peer() {
        return peer;
    }

    /** The held blocks. */
    public int[] blocks() {
        return blocks.clone();
    }

    /** How many blocks are held. */
    public int blockCount() {
        return blocks.length;
    }

    /** The TTL each renewal restarts. */
    public Duration ttl() {
        return Duration.ofNanos(ttlNanos);
    }

    /** Whether the hold has not ended yet. */
    public boolean isLive() {
        return end == null;
    }

    /** How the hold ended, once it has; the same {@link HoldEnd} that {@link Holds#pollEnded} reports. */
    public Optional<HoldEnd> end() {
        return Optional.ofNullable(end);
    }

    /** What to hand to the holder: {@link #grant(byte[])} without a tag. */
    public HoldGrant grant() {
        return new HoldGrant(id, (int) Duration.ofNanos(ttlNanos).toMillis(), blocks, new byte[0]);
    }

    /**
     * What to hand to the holder, with a tag of the owner's (a request id, say) that the holder
     * reads from {@link Lease#tag()}.
     *
     * @throws IllegalArgumentException if the tag is longer than {@link HoldGrant#MAX_TAG_BYTES}
     */
    public HoldGrant grant(byte[] tag) {
        if (tag.length > HoldGrant.MAX_TAG_BYTES) {
            throw new IllegalArgumentException("a grant's tag has at most " + HoldGrant.MAX_TAG_BYTES + " bytes, not "
                    + tag.length);
        }
        return new HoldGrant(id, (int) Duration.ofNanos(ttlNanos).toMillis(), blocks, tag.clone());
    }

    /**
     * Sends the grant to the holder as a notification; the holder's {@link Holds} accepts it and
     * hands the lease to {@link Holds#pollLeases}. Delivery is not confirmed: a grant that does not
     * arrive leaves the hold to expire.
     *
     * @return whether the transport took the notification (false: the peer is no longer registered)
     * @throws IllegalArgumentException if the grant does not fit a notification
     *     ({@link HoldGrant#fitsInNotification()}; send {@link HoldGrant#encode()} over your own
     *     control plane instead) or the tag is too long
     * @throws IllegalStateException if the hold ended or its {@link Holds} closed
     */
    public boolean sendGrant(byte[] tag) {
        return side.sendGrant(this, grant(tag));
    }

    /**
     * Cancels the hold: no renewal is granted from now on, and the holder is told, stops starting
     * transfers and lets go once those in flight ended. The hold then ends
     * {@link HoldEnd.Reason#CANCELLED}, or when its current deadline passes if the holder does not
     * answer; never earlier, so a holder in the middle of a transfer is never handed reused blocks.
     *
     * @return whether this call cancelled it (false: it had ended or was cancelled already)
     * @throws IllegalStateException if its {@link Holds} closed
     */
    public boolean cancel() {
        return side.cancel(this);
    }

    @Override
    public String toString() {
        HoldEnd e = end;
        return "Hold[" + Long.toHexString(id) + " for '" + peer + "', " + blocks.length + " blocks, ttl "
                + Duration.ofNanos(ttlNanos).toMillis() + " ms, " + (e == null ? (cancelling ? "cancelling" : "live")
                : "ended " + e.reason()) + "]";
    }
}
