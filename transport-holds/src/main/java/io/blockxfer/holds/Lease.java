package io.blockxfer.holds;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A hold as its holder sees it ({@link Holds#accept}): the right to read (pull) or write (push)
 * the owner's held blocks while the owner keeps them. Its {@link Holds} renews it with the owner
 * while it is open, and knows how long the owner has confirmed it for: only from the owner's
 * answers, measured on this process's clock from when the renewal was sent, so the owner's clock
 * is never trusted. Transfers go through the lease:
 * <ul>
 *   <li>{@link #read} and {@link #write} start a transfer of the owner's blocks; the future
 *       completes when it ended and the lease covered it to its end. A read that ended after the
 *       lease's confirmed time (the owner may have reused the blocks) fails with
 *       {@link LeaseException}, though its bytes moved. A write starts only with at least a
 *       quarter of the TTL confirmed ahead (waiting for the first confirmation, if need be), so
 *       that it ends before the owner could hand the blocks back.</li>
 *   <li>{@link #readAndRelease} and {@link #writeAndRelease}: the last transfer carries the
 *       release, which the owner receives after its bytes (the transport's notification), so the
 *       owner learns the hold ended only when the transfer did.</li>
 *   <li>{@link #release} and {@link #abandon} let go once every transfer under the lease ended.</li>
 * </ul>
 * Once the lease stops taking transfers (released, abandoned, expired, revoked, ended by the owner,
 * closed), every later transfer fails with {@link LeaseException} at once. A lease ends exactly
 * once ({@link #whenEnded()}).
 *
 * <p><b>Thread safety:</b> thread-safe; the state is guarded by its {@link Holds}'s lock.
 */
public final class Lease {

    /** Where a lease stands. <b>Thread safety:</b> immutable. */
    public enum Status {
        /** Accepted; the owner has not answered a renewal yet. Reads may start; writes wait. */
        PENDING,
        /** The owner confirmed it; it takes transfers. */
        CONFIRMED,
        /** It takes no more transfers and ends when those in flight did. */
        ENDING,
        /** Ended. */
        ENDED
    }

    /** Why a lease stopped taking transfers. <b>Thread safety:</b> immutable. */
    public enum EndReason {
        /** The holder released it ({@link #release}, or the last transfer of {@link #readAndRelease} ended). */
        RELEASED,
        /** The holder gave it up ({@link #abandon}), or its final transfer failed. */
        ABANDONED,
        /** Its confirmed time ran out on the holder's clock: renewals were not answered in time. */
        EXPIRED,
        /** The owner cancelled the hold ({@link Hold#cancel}). */
        REVOKED,
        /** The owner said the hold ended (it expired there, the owner closed, or it does not know it). */
        ENDED_BY_OWNER,
        /** The holder's {@link Holds} closed. */
        CLOSED
    }

    /** No confirmation yet. */
    static final long NONE = Long.MIN_VALUE;

    final HolderSide side;
    final String owner;
    final HoldGrant grant;
    final long ttlNanos;
    final long acceptedAt;
    private final int[] sortedBlocks;
    final CompletableFuture<Lease> confirmed = new CompletableFuture<>();
    final CompletableFuture<EndReason> ended = new CompletableFuture<>();

    // all guarded by the side's lock
    long confirmedUntil = NONE;
    /** The last two renewal rounds this lease went out in, and when, by this process's clock. */
    long lastRound;
    long lastSentAt = NONE;
    long prevRound;
    long prevSentAt = NONE;
    long ackedSentAt = NONE;
    long nextDueAt;
    boolean queued;
    /**
     * Nothing more will be confirmed: its holder-side deadline passed, the owner said it ended, or
     * the holds closed. No renewals from now on.
     */
    boolean lapsed;
    /** The owner handed the blocks back at once (it closed, or removed this peer): nothing ending from now on counts. */
    boolean handedBack;
    int inFlight;
    @Nullable List<Parked> parked;
    @Nullable EndReason stopReason;
    boolean releaseOwed;
    boolean releaseComplete;
    boolean releaseInFlight;
    boolean done;
    long refused;

    Lease(HolderSide side, String owner, HoldGrant grant, long acceptedAt) {
        this.side = side;
        this.owner = owner;
        this.grant = grant;
        this.ttlNanos = grant.ttl().toNanos();
        this.acceptedAt = acceptedAt;
        this.sortedBlocks = grant.blocks();
        Arrays.sort(sortedBlocks);
        this.nextDueAt = acceptedAt;
    }

    /** The owner of the blocks, as this process's transport knows it. */
    public String owner() {
        return owner;
    }

    /** The hold's id. */
    public long holdId() {
        return grant.holdId();
    }

    /** The grant it was accepted from. */
    public HoldGrant grant() {
        return grant;
    }

    /** The owner's blocks it covers. */
    public int[] blocks() {
        return grant.blocks();
    }

    /** How many blocks it covers. */
    public int blockCount() {
        return grant.blockCount();
    }

    /** The hold's TTL. */
    public Duration ttl() {
        return grant.ttl();
    }

    /** The owner's tag from the grant. */
    public byte[] tag() {
        return grant.tag();
    }

    boolean covers(int block) {
        return Arrays.binarySearch(sortedBlocks, block) >= 0;
    }

    /** Where it stands now. */
    public Status status() {
        return side.status(this);
    }

    /** Why it stopped taking transfers, once it has. */
    public Optional<EndReason> endReason() {
        return side.stopReason(this);
    }

    /**
     * How long the owner has confirmed it for from now, by this process's clock: zero before the
     * first confirmation and once it ran out or the lease stopped.
     */
    public Duration remaining() {
        return Duration.ofNanos(side.remainingNanos(this));
    }

    /**
     * Completes with this lease once the owner first confirmed it; fails with
     * {@link LeaseException} if it ended first. A new future on each call.
     */
    public CompletableFuture<Lease> whenConfirmed() {
        return confirmed.copy();
    }

    /**
     * Completes once the lease ended, every transfer under it too, and the owner was told where
     * the holder had to tell it; with why it stopped. A new future on each call.
     */
    public CompletableFuture<EndReason> whenEnded() {
        return ended.copy();
    }

    /**
     * Reads owner blocks {@code remoteBlocks[i]} into local blocks {@code localBlocks[i]}.
     *
     * @return completes when the read ended inside the lease; fails with the transport's
     *     {@code TransferFailedException}, or with {@link LeaseException} when the lease did not
     *     cover it (refused at once, or ended after the confirmed time)
     * @throws IllegalArgumentException if the arrays differ in length or are empty, a remote block
     *     is not one of the hold's, or the transport refuses the indices; nothing is started
     * @throws UnsupportedOperationException if the transport cannot read or carry notifications
     * @throws IllegalStateException if the transport closed
     */
    public CompletableFuture<Void> read(int[] localBlocks, int[] remoteBlocks) {
        return side.submit(this, false, localBlocks, remoteBlocks, false);
    }

    /**
     * As {@link #read}, and releases the lease with it: the owner receives the release after this
     * read's bytes, as the transport's notification of the read, so the hold ends when the read
     * did. Where other transfers under the lease are still in flight, the release goes as its own
     * message once every one ended instead. The lease takes no transfers from now on; if this read
     * fails, the lease ends {@link EndReason#ABANDONED} (the release may still reach the owner with
     * the failed read's late bytes): take a new hold to try again.
     */
    public CompletableFuture<Void> readAndRelease(int[] localBlocks, int[] remoteBlocks) {
        return side.submit(this, false, localBlocks, remoteBlocks, true);
    }

    /**
     * Writes local blocks {@code localBlocks[i]} into owner blocks {@code remoteBlocks[i]} (a
     * push). Starts once the owner confirmed the lease with at least a quarter of its TTL ahead;
     * otherwise as {@link #read}.
     */
    public CompletableFuture<Void> write(int[] localBlocks, int[] remoteBlocks) {
        return side.submit(this, true, localBlocks, remoteBlocks, false);
    }

    /**
     * As {@link #write}, and releases the lease with it, as {@link #readAndRelease} does: the owner
     * learns the hold ended only once this write's bytes are visible in its region.
     */
    public CompletableFuture<Void> writeAndRelease(int[] localBlocks, int[] remoteBlocks) {
        return side.submit(this, true, localBlocks, remoteBlocks, true);
    }

    /**
     * Releases the lease: it takes no more transfers, and the owner is told the holder is done once
     * every transfer under it ended; the hold then ends {@link HoldEnd.Reason#RELEASED} there.
     *
     * @return whether this call released it (false: it had stopped already, so a second release
     *     does nothing)
     */
    public boolean release() {
        return side.stop(this, EndReason.RELEASED);
    }

    /**
     * Gives the lease up: as {@link #release}, but the owner learns the holder did not finish (its
     * hold ends {@link HoldEnd.Reason#ABANDONED}); a push receiver then knows its blocks do not
     * hold what the sender meant.
     *
     * @return whether this call gave it up
     */
    public boolean abandon() {
        return side.stop(this, EndReason.ABANDONED);
    }

    /** Records that the lease went out in renewal {@code round} at {@code now}. Guarded by the side's lock. */
    void sent(long round, long now) {
        prevRound = lastRound;
        prevSentAt = lastSentAt;
        lastRound = round;
        lastSentAt = now;
    }

    /**
     * When this lease went out in {@code round}, or {@link #NONE} when that is not one of its last two
     * rounds (an answer more than a renewal interval late; the next answer covers more anyway).
     * Guarded by the side's lock.
     */
    long sentAt(long round) {
        if (round != 0 && round == lastRound) {
            return lastSentAt;
        }
        return round != 0 && round == prevRound ? prevSentAt : NONE;
    }

    /** The futures parked on this lease, emptied. Guarded by the side's lock. */
    List<Parked> takeParked() {
        List<Parked> p = parked;
        parked = null;
        return p == null ? List.of() : p;
    }

    void park(Parked p) {
        if (parked == null) {
            parked = new ArrayList<>(2);
        }
        parked.add(p);
    }

    @Override
    public String toString() {
        return "Lease[hold " + Long.toHexString(grant.holdId()) + " of '" + owner + "', " + grant.blockCount()
                + " blocks, " + status() + "]";
    }
}
