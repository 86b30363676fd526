package io.blockxfer.holds;

import java.time.Duration;
import java.util.Objects;

/**
 * How and when a hold ended, as its owner learns it once ({@link Holds#pollEnded}): from then on the
 * owner may reuse its blocks. Carries the blocks, so the owner needs no table of its own.
 *
 * <p><b>Thread safety:</b> immutable; {@link #blocks()} returns a copy.
 */
public final class HoldEnd {

    /** Why a hold ended. <b>Thread safety:</b> immutable. */
    public enum Reason {
        /** The holder released it: done with the blocks, every transfer it made under the hold ended. */
        RELEASED(1),
        /**
         * The holder gave it up ({@link Lease#abandon()}, or its final transfer failed, or its own
         * conservative deadline passed): it is done with the blocks, but what it meant to do with
         * them may not have happened (in a push, the blocks may not hold what the sender meant to
         * write).
         */
        ABANDONED(2),
        /** No renewal came within the TTL: the holder died, froze, or was cut off. */
        EXPIRED(3),
        /**
         * The owner cancelled it ({@link Hold#cancel()}) and the holder let go, or the lease it held
         * at the time ran out.
         */
        CANCELLED(4),
        /** The transport no longer has the holder as a peer (a membership removed it, say). */
        PEER_REMOVED(5),
        /** The owner's {@link Holds} closed, or its transport did. */
        CLOSED(6);

        private final int code;

        Reason(int code) {
            this.code = code;
        }

        /** The reason's code in hold messages. */
        int code() {
            return code;
        }

        /**
         * The reason of {@code code}.
         *
         * @throws IllegalArgumentException if no reason has it
         */
        static Reason ofCode(int code) {
            for (Reason r : values()) {
                if (r.code == code) {
                    return r;
                }
            }
            throw new IllegalArgumentException("no hold end reason has code " + code);
        }
    }

    private final long holdId;
    private final String peer;
    private final int[] blocks;
    private final long bytes;
    private final Reason reason;
    private final long heldNanos;
    private final long renewals;

    HoldEnd(long holdId, String peer, int[] blocks, long bytes, Reason reason, long heldNanos, long renewals) {
        this.holdId = holdId;
        this.peer = peer;
        this.blocks = blocks;
        this.bytes = bytes;
        this.reason = reason;
        this.heldNanos = heldNanos;
        this.renewals = renewals;
    }

    /** The hold's id. */
    public long holdId() {
        return holdId;
    }

    /** The peer the blocks were held for. */
    public String peer() {
        return peer;
    }

    /** The blocks, now the owner's again. */
    public int[] blocks() {
        return blocks.clone();
    }

    /** How many blocks the hold covered. */
    public int blockCount() {
        return blocks.length;
    }

    /** The bytes the hold covered: its blocks times the region's block length. */
    public long bytes() {
        return bytes;
    }

    /** Why it ended. */
    public Reason reason() {
        return reason;
    }

    /** From the hold's creation to its end, by the owner's clock. */
    public Duration heldFor() {
        return Duration.ofNanos(heldNanos);
    }

    /** How many renewals the owner granted the hold. */
    public long renewals() {
        return renewals;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HoldEnd e && holdId == e.holdId && peer.equals(e.peer) && reason == e.reason;
    }

    @Override
    public int hashCode() {
        return Objects.hash(holdId, peer, reason);
    }

    @Override
    public String toString() {
        return "HoldEnd[hold " + Long.toHexString(holdId) + " for '" + peer + "', " + reason + ", " + blocks.length
                + " blocks, held " + Duration.ofNanos(heldNanos).toMillis() + " ms, " + renewals + " renewals]";
    }
}
