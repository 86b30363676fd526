package io.blockxfer.holds;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.TransferFuture;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The holder's side of a {@link Holds}: its leases by owner, their renewals in rounds, the owners'
 * answers, and the transfers under each lease, checked against the time the owner confirmed. A
 * transfer's end counts only if the lease was confirmed past the moment this process learnt of it:
 * the owner's deadline is measured from its receipt of a renewal, which comes after the holder sent
 * it, so the holder's own clock from the sending is a bound the owner never undercuts (less a
 * thousandth of the time granted, for clocks that run at different rates).
 *
 * <p><b>Thread safety:</b> thread-safe; one lock guards the leases, messages and futures go out
 * after it.
 */
final class HolderSide {

    private final Settings settings;
    private final Messenger messenger;
    private final Signals signals;
    private final Mailbox<Lease> granted;
    private final LeaseTransfers transfers;
    final ReentrantLock lock = new ReentrantLock();
    private final Map<String, OwnerLeases> owners = new HashMap<>();
    private final PriorityQueue<Lease> due = new PriorityQueue<>((a, b) -> Long.compare(a.nextDueAt, b.nextDueAt));
    private long open;
    private long accepted;
    private long renewalsSent;
    private long renewalMessages;
    private long renewalBytes;
    private long renewalsConfirmed;
    long transfersRefused;
    private boolean closed;

    HolderSide(Settings settings, Messenger messenger, Signals signals, Mailbox<Lease> granted) {
        this.settings = settings;
        this.messenger = messenger;
        this.signals = signals;
        this.granted = granted;
        this.transfers = new LeaseTransfers(this, settings, signals);
    }

    Settings settings() {
        return settings;
    }

    Messenger messenger() {
        return messenger;
    }

    /** Accepts a grant from {@code owner}; its first renewal goes out at once. */
    Lease accept(String owner, HoldGrant grant) {
        DataTransport t = settings.transport();
        if (t.traffic(owner).isEmpty()) {
            throw new IllegalArgumentException("'" + owner + "' is not a registered peer of this transport: a lease"
                    + " renews through notifications to its owner, so add the owner first");
        }
        long now = settings.clock().nanoTime();
        Lease l = new Lease(this, owner, grant, now);
        Outbox out = new Outbox();
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("the holds are closed");
            }
            OwnerLeases ol = owners.computeIfAbsent(owner, OwnerLeases::new);
            if (ol.leases.containsKey(grant.holdId())) {
                throw new IllegalArgumentException("hold " + Long.toHexString(grant.holdId()) + " of '" + owner
                        + "' was accepted already");
            }
            ol.leases.put(grant.holdId(), l);
            open++;
            accepted++;
            renew(ol, List.of(l), now, out);
            schedule(l, now);
        } finally {
            lock.unlock();
        }
        out.flush(messenger);
        return l;
    }

    /** A grant arrived as a notification from {@code sender}: accept it and hand it to pollLeases. */
    void onGrant(String sender, HoldGrant grant) {
        Lease l;
        lock.lock();
        try {
            OwnerLeases ol = owners.get(sender);
            if (closed || (ol != null && ol.leases.containsKey(grant.holdId()))) {
                return;
            }
        } finally {
            lock.unlock();
        }
        try {
            l = accept(sender, grant);
        } catch (IllegalArgumentException | IllegalStateException e) {
            signals.messageRefused(sender, "STALE", grant.holdId());
            return;
        }
        granted.add(l);
    }

    private void schedule(Lease l, long now) {
        l.nextDueAt = now + Math.max(1, l.ttlNanos / settings.renewalsPerTtl());
        l.queued = true;
        due.add(l);
    }

    /** Sends one renewal round to {@code ol}'s owner for {@code leases}; the caller holds the lock. */
    private void renew(OwnerLeases ol, List<Lease> leases, long now, Outbox out) {
        long round = ol.newRound();
        int max = HoldMessage.maxIds(HoldMessage.Type.RENEW);
        int bytes = 0;
        int messages = 0;
        for (int from = 0; from < leases.size(); from += max) {
            int to = Math.min(leases.size(), from + max);
            long[] ids = new long[to - from];
            for (int i = from; i < to; i++) {
                Lease l = leases.get(i);
                l.sent(round, now);
                ids[i - from] = l.holdId();
            }
            byte[] payload = HoldMessage.renew(round, ids).encode();
            out.send(ol.owner, payload);
            bytes += payload.length;
            messages++;
        }
        renewalsSent += leases.size();
        renewalMessages += messages;
        renewalBytes += bytes;
        int holds = leases.size();
        int m = messages;
        int b = bytes;
        out.then(() -> signals.renewalsSent(ol.owner, holds, m, b));
    }

    /** Whether {@code l} still asks its owner for time: open, or letting go with transfers to finish. */
    static boolean renews(Lease l) {
        return !l.done && !l.lapsed && (l.stopReason == null || l.stopReason == Lease.EndReason.RELEASED
                || l.stopReason == Lease.EndReason.ABANDONED);
    }

    /** When {@code l}'s holder-side deadline is: its confirmed time, or a TTL after its acceptance before that. */
    static long deadline(Lease l) {
        return l.confirmedUntil == Lease.NONE ? l.acceptedAt + l.ttlNanos : l.confirmedUntil;
    }

    /** Renews what is due and lets lapse what ran out. */
    void tick() {
        long now = settings.clock().nanoTime();
        Outbox out = new Outbox();
        lock.lock();
        try {
            if (closed && due.isEmpty()) {
                return;
            }
            Map<OwnerLeases, List<Lease>> batches = new HashMap<>();
            Lease l;
            while ((l = due.peek()) != null && l.nextDueAt <= now) {
                due.poll();
                l.queued = false;
                if (l.done) {
                    continue;
                }
                if (!l.lapsed && now > deadline(l)) {
                    lapse(l, out);
                }
                if (renews(l) && !closed) {
                    OwnerLeases ol = owners.get(l.owner);
                    if (ol != null) {
                        batches.computeIfAbsent(ol, k -> new ArrayList<>()).add(l);
                    }
                    schedule(l, now);
                }
            }
            batches.forEach((ol, leases) -> renew(ol, leases, now, out));
        } finally {
            lock.unlock();
        }
        out.flush(messenger);
    }

    /** The holder-side deadline of {@code l} passed; the caller holds the lock. */
    void lapse(Lease l, Outbox out) {
        l.lapsed = true;
        if (!stop(l, Lease.EndReason.EXPIRED, true, false, out)) {
            transfers.resolveParked(l, out);
            finishIfIdle(l, out);
        }
    }

    /** An owner answered a renewal round. */
    void onRenewed(String sender, HoldMessage m) {
        Outbox out = new Outbox();
        lock.lock();
        try {
            OwnerLeases ol = owners.get(sender);
            if (ol == null) {
                return;
            }
            for (int i = 0; i < m.count(); i++) {
                Lease l = ol.leases.get(m.id(i));
                long sentAt = l == null ? Lease.NONE : l.sentAt(m.round());
                if (l == null || sentAt == Lease.NONE || !renews(l)) {
                    continue;
                }
                long grant = m.grantedMillis(i) * 1_000_000L;
                long until = sentAt + grant - grant / 1000;
                l.ackedSentAt = Math.max(l.ackedSentAt, sentAt);
                renewalsConfirmed++;
                if (grant > 0 && until > l.confirmedUntil) {
                    boolean first = l.confirmedUntil == Lease.NONE;
                    l.confirmedUntil = until;
                    if (first) {
                        Lease confirmed = l;
                        out.then(() -> confirmed.confirmed.complete(confirmed));
                    }
                }
                transfers.resolveParked(l, out);
                finishIfIdle(l, out);
            }
        } finally {
            lock.unlock();
        }
        out.flush(messenger);
    }

    /**
     * An owner says holds ended. Nothing more is confirmed for them. Where the owner handed the
     * blocks back at once (it closed, or had removed this peer), no transfer ending from now on
     * counts; otherwise the owner ended the hold no earlier than the time it had confirmed, and a
     * transfer that ended within it still counts (a release that rode on a read ends the hold
     * there before the read's end is reported here).
     */
    void onEnded(String sender, HoldMessage m) {
        Outbox out = new Outbox();
        lock.lock();
        try {
            OwnerLeases ol = owners.get(sender);
            if (ol == null) {
                return;
            }
            for (int i = 0; i < m.count(); i++) {
                Lease l = ol.leases.get(m.id(i));
                if (l == null || l.done) {
                    continue;
                }
                HoldEnd.Reason why = m.endReason(i);
                l.lapsed = true;
                l.handedBack |= why == HoldEnd.Reason.CLOSED || why == HoldEnd.Reason.PEER_REMOVED;
                boolean cancelled = why == HoldEnd.Reason.CANCELLED;
                if (!stop(l, cancelled ? Lease.EndReason.REVOKED : Lease.EndReason.ENDED_BY_OWNER, cancelled, false,
                        out)) {
                    // the holder was letting go already: owe the owner its release only if it waits for one
                    l.releaseOwed &= cancelled;
                    transfers.resolveParked(l, out);
                    finishIfIdle(l, out);
                }
            }
        } finally {
            lock.unlock();
        }
        out.flush(messenger);
    }

    /** {@link Lease#release()} and {@link Lease#abandon()}. */
    boolean stop(Lease l, Lease.EndReason why) {
        Outbox out = new Outbox();
        boolean stopped;
        lock.lock();
        try {
            stopped = stop(l, why, true, why == Lease.EndReason.RELEASED, out);
        } finally {
            lock.unlock();
        }
        out.flush(messenger);
        return stopped;
    }

    /**
     * Stops {@code l} taking transfers, once; the caller holds the lock. Unless the holder is
     * letting go itself, its parked transfers fail: nothing more will be confirmed for them.
     */
    boolean stop(Lease l, Lease.EndReason why, boolean owed, boolean complete, Outbox out) {
        if (l.stopReason != null || l.done) {
            return false;
        }
        l.stopReason = why;
        l.releaseOwed = owed;
        l.releaseComplete = complete;
        if (why == Lease.EndReason.CLOSED) {
            l.lapsed = true;
        }
        if (l.lapsed) {
            transfers.resolveParked(l, out);
        }
        if (why != Lease.EndReason.RELEASED && why != Lease.EndReason.ABANDONED) {
            if (!l.confirmed.isDone()) {
                Lease lease = l;
                out.then(() -> lease.confirmed.completeExceptionally(new LeaseException(lease, why,
                        "it ended before its owner confirmed it")));
            }
        }
        finishIfIdle(l, out);
        return true;
    }

    /**
     * Ends {@code l} if it stopped and nothing under it is in flight or parked: tells the owner
     * where it owes it, then completes {@link Lease#whenEnded()}. The caller holds the lock.
     */
    void finishIfIdle(Lease l, Outbox out) {
        Lease.EndReason why = l.stopReason;
        if (l.done || why == null || l.inFlight > 0 || l.parked != null || l.releaseInFlight) {
            return;
        }
        if (l.releaseOwed) {
            out.send(l.owner, HoldMessage.release(l.releaseComplete, l.holdId()).encode());
            l.releaseOwed = false;
        }
        l.done = true;
        open--;
        OwnerLeases ol = owners.get(l.owner);
        if (ol != null) {
            ol.leases.remove(l.holdId());
            if (ol.leases.isEmpty()) {
                owners.remove(l.owner);
            }
        }
        long refused = l.refused;
        out.then(() -> {
            l.ended.complete(why);
            if (!l.confirmed.isDone()) {
                l.confirmed.completeExceptionally(new LeaseException(l, why, "it ended before its owner confirmed it"));
            }
            signals.leaseEnded(l, why, refused);
        });
    }

    CompletableFuture<Void> submit(Lease l, boolean write, int[] local, int[] remote, boolean release) {
        return transfers.submit(l, write, local, remote, release);
    }

    /** The closing of the holds: every lease stops {@link Lease.EndReason#CLOSED}; idempotent. */
    void closeAll() {
        Outbox out = new Outbox();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            for (OwnerLeases ol : new ArrayList<>(owners.values())) {
                for (Lease l : new ArrayList<>(ol.leases.values())) {
                    l.lapsed = true;
                    if (!stop(l, Lease.EndReason.CLOSED, true, false, out)) {
                        transfers.resolveParked(l, out);
                        finishIfIdle(l, out);
                    }
                }
            }
            due.clear();
        } finally {
            lock.unlock();
        }
        out.flush(messenger);
    }

    boolean isClosed() {
        return closed;
    }

    Lease.Status status(Lease l) {
        lock.lock();
        try {
            if (l.done) {
                return Lease.Status.ENDED;
            }
            if (l.stopReason != null) {
                return Lease.Status.ENDING;
            }
            return l.confirmedUntil == Lease.NONE ? Lease.Status.PENDING : Lease.Status.CONFIRMED;
        } finally {
            lock.unlock();
        }
    }

    Optional<Lease.EndReason> stopReason(Lease l) {
        lock.lock();
        try {
            return Optional.ofNullable(l.stopReason);
        } finally {
            lock.unlock();
        }
    }

    long remainingNanos(Lease l) {
        long now = settings.clock().nanoTime();
        lock.lock();
        try {
            if (l.stopReason != null || l.lapsed || l.confirmedUntil == Lease.NONE) {
                return 0;
            }
            return Math.max(0, l.confirmedUntil - now);
        } finally {
            lock.unlock();
        }
    }

    /** The holder's share of the stats. */
    long[] counts() {
        lock.lock();
        try {
            return new long[] {open, accepted, renewalsSent, renewalMessages, renewalBytes, renewalsConfirmed,
                transfersRefused};
        } finally {
            lock.unlock();
        }
    }
}
