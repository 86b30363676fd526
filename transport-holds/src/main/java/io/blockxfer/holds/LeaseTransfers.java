package io.blockxfer.holds;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.TransferFuture;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;

/**
 * The transfers under a holder's leases: started through the transport's futures, each counted in
 * flight until it ended, then checked against the time the owner confirmed. A transfer that ended
 * while the newest renewal was unanswered waits ({@link Parked}) for that answer or for the lease
 * to lapse. A release that rides on the last transfer ({@link Lease#readAndRelease}) goes as that
 * transfer's notification, which the transport delivers only after its bytes.
 *
 * <p><b>Thread safety:</b> thread-safe; state under the holder side's lock.
 */
final class LeaseTransfers {

    private final HolderSide side;
    private final Settings settings;
    private final Signals signals;

    LeaseTransfers(HolderSide side, Settings settings, Signals signals) {
        this.side = side;
        this.settings = settings;
        this.signals = signals;
    }

    CompletableFuture<Void> submit(Lease l, boolean write, int[] localBlocks, int[] remoteBlocks, boolean release) {
        int[] local = Objects.requireNonNull(localBlocks, "localBlocks").clone();
        int[] remote = Objects.requireNonNull(remoteBlocks, "remoteBlocks").clone();
        if (local.length == 0 || local.length != remote.length) {
            throw new IllegalArgumentException("a transfer needs as many local as remote blocks, at least one: "
                    + local.length + " local, " + remote.length + " remote");
        }
        for (int b : remote) {
            if (!l.covers(b)) {
                throw new IllegalArgumentException("block " + b + " of '" + l.owner() + "' is not one of hold "
                        + Long.toHexString(l.holdId()) + "'s");
            }
        }
        for (int b : local) {
            if (b < 0 || b >= settings.numBlocks()) {
                throw new IllegalArgumentException("local block " + b + " is outside the region's "
                        + settings.numBlocks() + " blocks");
            }
        }
        long now = settings.clock().nanoTime();
        Outbox out = new Outbox();
        LeaseException refusal = null;
        boolean carry = false;
        boolean awaitConfirmation = false;
        side.lock.lock();
        try {
            if (l.stopReason == null && !l.lapsed && now > HolderSide.deadline(l)) {
                side.lapse(l, out);
            }
            Lease.EndReason stopped = l.stopReason;
            if (stopped != null) {
                refusal = refuse(l, stopped, "it stopped taking transfers: " + stopped);
            } else if (write && l.confirmedUntil != Lease.NONE && l.confirmedUntil - now < l.ttlNanos / 4) {
                refusal = refuse(l, null, "a write needs a quarter of the TTL confirmed ahead; "
                        + Math.max(0, (l.confirmedUntil - now) / 1_000_000) + " ms are");
            } else {
                awaitConfirmation = write && l.confirmedUntil == Lease.NONE;
                carry = release && l.inFlight == 0 && l.parked == null;
                l.inFlight++;
                if (release) {
                    l.stopReason = Lease.EndReason.RELEASED;
                    l.releaseComplete = true;
                    l.releaseOwed = !carry;
                    l.releaseInFlight = carry;
                }
            }
        } finally {
            side.lock.unlock();
        }
        out.flush(side.messenger());
        if (refusal != null) {
            signals.transferRefused(l.owner(), refusal.endReason().orElse(Lease.EndReason.EXPIRED));
            return CompletableFuture.failedFuture(refusal);
        }
        CompletableFuture<Void> result = new CompletableFuture<>();
        boolean carries = carry;
        if (awaitConfirmation) {
            // the write starts from the confirmation; result is the caller's future, the dependent stage nobody's
            var unused = l.confirmed.whenComplete((x, err) -> {
                if (err != null) {
                    ended(l, result, err, carries);
                } else {
                    start(l, write, local, remote, carries, release, result, false);
                }
            });
        } else {
            start(l, write, local, remote, carries, release, result, true);
        }
        return result;
    }

    private LeaseException refuse(Lease l, Lease.@Nullable EndReason why, String message) {
        l.refused++;
        side.transfersRefused++;
        return new LeaseException(l, why, message);
    }

    private void start(Lease l, boolean write, int[] local, int[] remote, boolean carry, boolean release,
            CompletableFuture<Void> result, boolean onCaller) {
        DataTransport t = settings.transport();
        TransferFuture f;
        try {
            if (carry) {
                byte[] payload = HoldMessage.release(true, l.holdId()).encode();
                f = write ? t.writeBlocksAsync(l.owner(), local, remote, payload)
                        : t.readBlocksAsync(l.owner(), local, remote, payload);
            } else {
                f = write ? t.writeBlocksAsync(l.owner(), local, remote) : t.readBlocksAsync(l.owner(), local, remote);
            }
        } catch (RuntimeException e) {
            undo(l, release);
            if (onCaller) {
                throw e;
            }
            result.completeExceptionally(e);
            return;
        }
        // the transfer's end settles result; the dependent stage itself is nobody's
        var unused = f.whenComplete((v, err) -> ended(l, result, err, carry));
    }

    /** A submit the transport refused at once: the lease is as it was before. */
    private void undo(Lease l, boolean release) {
        Outbox out = new Outbox();
        side.lock.lock();
        try {
            l.inFlight--;
            if (release && l.stopReason == Lease.EndReason.RELEASED) {
                l.stopReason = null;
                l.releaseOwed = false;
                l.releaseInFlight = false;
            }
            side.finishIfIdle(l, out);
        } finally {
            side.lock.unlock();
        }
        out.flush(side.messenger());
    }

    /** A transfer under {@code l} ended: by the transport ({@code err} null when done) or before it started. */
    private void ended(Lease l, CompletableFuture<Void> result, @Nullable Throwable err, boolean carry) {
        long at = settings.clock().nanoTime();
        Outbox out = new Outbox();
        Throwable failure = null;
        boolean parked = false;
        side.lock.lock();
        try {
            l.inFlight--;
            if (carry) {
                l.releaseInFlight = false;
            }
            if (err != null) {
                failure = err instanceof CompletionException ce && ce.getCause() != null ? ce.getCause() : err;
                if (carry && l.stopReason == Lease.EndReason.RELEASED) {
                    // its release may still reach the owner with the failed transfer's late bytes: the lease
                    // cannot take a transfer again, and the owner is told the holder gave up
                    l.stopReason = Lease.EndReason.ABANDONED;
                    l.releaseOwed = true;
                    l.releaseComplete = false;
                }
            } else if (!l.handedBack && at <= l.confirmedUntil) {
                failure = null;
            } else if (!l.handedBack && canConfirm(l, at)) {
                l.park(new Parked(result, at, carry));
                parked = true;
            } else {
                failure = refuse(l, l.stopReason, notCovered(l, at));
            }
            side.finishIfIdle(l, out);
        } finally {
            side.lock.unlock();
        }
        out.flush(side.messenger());
        if (parked) {
            return;
        }
        if (failure == null) {
            result.complete(null);
        } else {
            if (failure instanceof LeaseException) {
                signals.transferRefused(l.owner(), l.stopReason == null ? Lease.EndReason.EXPIRED : l.stopReason);
            }
            result.completeExceptionally(failure);
        }
    }

    private static String notCovered(Lease l, long at) {
        if (l.handedBack) {
            return "the owner handed the blocks back before the transfer's end was known here";
        }
        if (l.confirmedUntil == Lease.NONE) {
            return "the owner never confirmed it";
        }
        return "the transfer's end was known here " + (at - l.confirmedUntil) / 1_000_000 + " ms after the time the"
                + " owner had confirmed; the blocks may have been reused";
    }

    /** Whether an answer still due could confirm {@code l} up to {@code at}; under the lock. */
    static boolean canConfirm(Lease l, long at) {
        return !l.lapsed && l.lastSentAt != Lease.NONE && l.lastSentAt > l.ackedSentAt
                && at <= l.lastSentAt + l.ttlNanos - l.ttlNanos / 1000;
    }

    /** Settles {@code l}'s parked transfers that the owner's answers now decide; under the lock. */
    void resolveParked(Lease l, Outbox out) {
        if (l.parked == null) {
            return;
        }
        List<Parked> still = new ArrayList<>(0);
        for (Parked p : l.takeParked()) {
            if (!l.handedBack && p.endedAt() <= l.confirmedUntil) {
                out.then(() -> p.result().complete(null));
            } else if (!l.handedBack && canConfirm(l, p.endedAt())) {
                still.add(p);
            } else {
                LeaseException e = refuse(l, l.stopReason, notCovered(l, p.endedAt()));
                Lease.EndReason why = l.stopReason == null ? Lease.EndReason.EXPIRED : l.stopReason;
                out.then(() -> {
                    signals.transferRefused(l.owner(), why);
                    p.result().completeExceptionally(e);
                });
            }
        }
        for (Parked p : still) {
            l.park(p);
        }
    }
}
