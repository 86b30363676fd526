package io.blockxfer.holds;

import io.blockxfer.transport.Notification;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.locks.ReentrantLock;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import org.jspecify.annotations.Nullable;

/**
 * The owner's side of a {@link Holds}: the live holds by id and by peer, their deadlines in a queue,
 * renewals and releases from holders, cancels, peer removals and close. Every hold ends exactly
 * once: its end is decided under the lock, published after it.
 *
 * <p><b>Thread safety:</b> thread-safe; one lock guards the tables, messages go out after it.
 */
final class OwnerSide {

    private final Settings settings;
    private final Messenger messenger;
    private final Signals signals;
    private final Mailbox<HoldEnd> ends;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<Long, Hold> live = new HashMap<>();
    private final Map<String, PeerHolds> peers = new HashMap<>();
    private final PriorityQueue<Hold> deadlines = new PriorityQueue<>((a, b) -> Long.compare(a.queuedDeadline,
            b.queuedDeadline));
    private final RandomGenerator ids;
    private final Map<HoldEnd.Reason, Long> endCounts = new EnumMap<>(HoldEnd.Reason.class);
    private long heldBlocks;
    private long created;
    private long renewalsGranted;
    private long renewalsRefused;
    private int endedInQueue;
    private boolean closed;

    OwnerSide(Settings settings, Messenger messenger, Signals signals, Mailbox<HoldEnd> ends) {
        this.settings = settings;
        this.messenger = messenger;
        this.signals = signals;
        this.ends = ends;
        byte[] seed = new byte[16];
        new SecureRandom().nextBytes(seed);
        this.ids = RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
        for (HoldEnd.Reason r : HoldEnd.Reason.values()) {
            endCounts.put(r, 0L);
        }
    }

    Hold create(String peer, int[] blocks, Duration ttl, Duration maxLifetime) {
        int[] copy = checkBlocks(blocks);
        long ttlNanos = ttl.toNanos();
        if (!maxLifetime.isZero() && maxLifetime.compareTo(ttl) < 0) {
            throw new IllegalArgumentException("a hold's lifetime limit (" + maxLifetime + ") must be 0 (none) or at"
                    + " least its TTL (" + ttl + ")");
        }
        if (settings.transport().traffic(peer).isEmpty()) {
            throw new IllegalArgumentException("'" + peer + "' is not a registered peer of this transport: a hold"
                    + " reaches its holder through notifications, so add the peer first");
        }
        long now = settings.clock().nanoTime();
        Hold h;
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("the holds are closed");
            }
            long id;
            do {
                id = ids.nextLong();
            } while (id == 0 || live.containsKey(id));
            long lifetimeEnd = maxLifetime.isZero() ? Long.MAX_VALUE : now + maxLifetime.toNanos();
            h = new Hold(this, ++created, id, peer, copy, ttlNanos, now, lifetimeEnd);
            live.put(id, h);
            peers.computeIfAbsent(peer, PeerHolds::new).add(h);
            h.queued = true;
            deadlines.add(h);
            heldBlocks += copy.length;
        } finally {
            lock.unlock();
        }
        signals.holdCreated(h, copy.length * settings.blockLength());
        return h;
    }

    private int[] checkBlocks(int[] blocks) {
        if (blocks.length == 0 || blocks.length > HoldGrant.MAX_BLOCKS) {
            throw new IllegalArgumentException("a hold covers 1 to " + HoldGrant.MAX_BLOCKS + " blocks, not "
                    + blocks.length);
        }
        int[] copy = blocks.clone();
        for (int b : copy) {
            if (b < 0 || b >= settings.numBlocks()) {
                throw new IllegalArgumentException("block " + b + " is outside the region's " + settings.numBlocks()
                        + " blocks");
            }
        }
        HoldGrant.checkDistinct(copy, "a hold's blocks");
        return copy;
    }

    boolean sendGrant(Hold h, HoldGrant grant) {
        byte[] payload = grant.encode();
        if (payload.length > Notification.MAX_PAYLOAD_BYTES) {
            throw new IllegalArgumentException("the grant of hold " + Long.toHexString(h.id) + " takes " + payload.length
                    + " bytes, more than a notification carries (" + Notification.MAX_PAYLOAD_BYTES
                    + "): send HoldGrant.encode() over your own control plane");
        }
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("the holds are closed");
            }
            if (h.end != null) {
                throw new IllegalStateException("hold " + Long.toHexString(h.id) + " ended: " + h.end);
            }
        } finally {
            lock.unlock();
        }
        return messenger.send(h.peer, payload);
    }

    boolean cancel(Hold h) {
        Outbox out = new Outbox();
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("the holds are closed");
            }
            if (h.end != null || h.cancelling) {
                return false;
            }
            h.cancelling = true;
            out.send(h.peer, HoldMessage.ended(new long[] {h.id}, new HoldEnd.Reason[] {HoldEnd.Reason.CANCELLED})
                    .encode());
        } finally {
            lock.unlock();
        }
        out.flush(messenger);
        return true;
    }

    /** A holder asks to renew holds; answers with the renewed ones and the ended ones. */
    void onRenew(String sender, HoldMessage m) {
        long now = settings.clock().nanoTime();
        int n = m.count();
        long[] renewed = new long[n];
        int[] granted = new int[n];
        int r = 0;
        long[] endedIds = new long[n];
        HoldEnd.@Nullable Reason[] reasons = new HoldEnd.Reason[n];
        int e = 0;
        List<String> refusals = new ArrayList<>(0);
        lock.lock();
        try {
            for (int i = 0; i < n; i++) {
                long id = m.id(i);
                Hold h = closed ? null : live.get(id);
                if (h == null || !h.peer.equals(sender)) {
                    endedIds[e] = id;
                    reasons[e++] = null;
                    renewalsRefused++;
                    refusals.add(h == null ? "STALE" : "WRONG_PEER");
                } else if (h.cancelling) {
                    endedIds[e] = id;
                    reasons[e++] = HoldEnd.Reason.CANCELLED;
                } else {
                    long grant = Math.min(h.ttlNanos, h.lifetimeEnd - now);
                    if (grant > 0) {
                        h.deadline = Math.max(h.deadline, now + grant);
                        h.renewals++;
                        renewalsGranted++;
                    }
                    renewed[r] = id;
                    granted[r++] = (int) Math.max(0, Math.min(Integer.MAX_VALUE, grant / 1_000_000L));
                }
            }
        } finally {
            lock.unlock();
        }
        if (r > 0) {
            sendChunked(sender, r, (from, to) -> HoldMessage.renewed(m.round(), Arrays.copyOfRange(renewed, from, to),
                    Arrays.copyOfRange(granted, from, to)), HoldMessage.Type.RENEWED);
            signals.renewalsGranted(sender, r);
        }
        if (e > 0) {
            HoldEnd.@Nullable Reason[] rs = reasons;
            sendChunked(sender, e, (from, to) -> HoldMessage.ended(Arrays.copyOfRange(endedIds, from, to),
                    Arrays.copyOfRange(rs, from, to)), HoldMessage.Type.ENDED);
        }
        for (int i = 0; i < refusals.size(); i++) {
            signals.messageRefused(sender, refusals.get(i), 0);
        }
    }

    private interface Chunk {
        HoldMessage make(int from, int to);
    }

    private void sendChunked(String peer, int count, Chunk chunk, HoldMessage.Type type) {
        int max = HoldMessage.maxIds(type);
        for (int from = 0; from < count; from += max) {
            messenger.send(peer, chunk.make(from, Math.min(count, from + max)).encode());
        }
    }

    /** A holder lets go of holds. */
    void onRelease(String sender, HoldMessage m) {
        long now = settings.clock().nanoTime();
        List<HoldEnd> ended = new ArrayList<>(m.count());
        List<String> refusals = new ArrayList<>(0);
        lock.lock();
        try {
            for (int i = 0; i < m.count(); i++) {
                Hold h = closed ? null : live.get(m.id(i));
                if (h == null || !h.peer.equals(sender)) {
                    renewalsRefused++;
                    refusals.add(h == null ? "STALE" : "WRONG_PEER");
                    continue;
                }
                HoldEnd.Reason why = h.cancelling ? HoldEnd.Reason.CANCELLED
                        : m.complete() ? HoldEnd.Reason.RELEASED : HoldEnd.Reason.ABANDONED;
                ended.add(end(h, why, now));
            }
        } finally {
            lock.unlock();
        }
        publish(ended);
        for (String why : refusals) {
            signals.messageRefused(sender, why, 0);
        }
    }

    /** Ends the holds whose deadline passed, then those of peers the transport no longer has. */
    void tick() {
        long now = settings.clock().nanoTime();
        List<HoldEnd> ended = new ArrayList<>(0);
        List<String> peersNow;
        long seq;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            Hold h;
            while ((h = deadlines.peek()) != null && h.queuedDeadline <= now) {
                deadlines.poll();
                h.queued = false;
                if (h.end != null) {
                    endedInQueue--;
                } else if (h.deadline > now) {
                    h.queuedDeadline = h.deadline;
                    h.queued = true;
                    deadlines.add(h);
                } else {
                    ended.add(end(h, h.cancelling ? HoldEnd.Reason.CANCELLED : HoldEnd.Reason.EXPIRED, now));
                }
            }
            peersNow = settings.endOnPeerRemoval() ? new ArrayList<>(peers.keySet()) : List.of();
            seq = created;
        } finally {
            lock.unlock();
        }
        publish(ended);
        List<String> gone = new ArrayList<>(0);
        for (String peer : peersNow) {
            boolean registered;
            try {
                registered = settings.transport().traffic(peer).isPresent();
            } catch (IllegalStateException transportClosed) {
                closeAll();
                return;
            }
            if (!registered) {
                gone.add(peer);
            }
        }
        for (String peer : gone) {
            endPeer(peer, seq);
        }
    }

    /**
     * Ends every hold of {@code peer} up to the {@code seq}-th created: the peer is gone (holds
     * created after it was found gone are for a peer added again, and stay).
     */
    int endPeer(String peer, long seq) {
        long now = settings.clock().nanoTime();
        List<HoldEnd> ended = new ArrayList<>();
        lock.lock();
        try {
            if (closed) {
                return 0;
            }
            PeerHolds p = peers.get(peer);
            Hold h = p == null ? null : p.head;
            while (h != null) {
                Hold next = h.next;
                if (h.seq <= seq) {
                    ended.add(end(h, HoldEnd.Reason.PEER_REMOVED, now));
                }
                h = next;
            }
        } finally {
            lock.unlock();
        }
        publish(ended);
        return ended.size();
    }

    int endPeerNow(String peer) {
        long seq;
        lock.lock();
        try {
            seq = created;
        } finally {
            lock.unlock();
        }
        return endPeer(peer, seq);
    }

    /** Ends every live hold {@link HoldEnd.Reason#CLOSED} and tells each holder; idempotent. */
    void closeAll() {
        long now = settings.clock().nanoTime();
        List<HoldEnd> ended = new ArrayList<>();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            for (Hold h : new ArrayList<>(live.values())) {
                ended.add(end(h, HoldEnd.Reason.CLOSED, now));
            }
            closed = true;
            deadlines.clear();
            endedInQueue = 0;
        } finally {
            lock.unlock();
        }
        Map<String, List<Long>> byPeer = new HashMap<>();
        for (HoldEnd e : ended) {
            byPeer.computeIfAbsent(e.peer(), k -> new ArrayList<>()).add(e.holdId());
        }
        byPeer.forEach((peer, list) -> {
            long[] all = list.stream().mapToLong(Long::longValue).toArray();
            HoldEnd.Reason[] reasons = new HoldEnd.Reason[all.length];
            Arrays.fill(reasons, HoldEnd.Reason.CLOSED);
            sendChunked(peer, all.length, (from, to) -> HoldMessage.ended(Arrays.copyOfRange(all, from, to),
                    Arrays.copyOfRange(reasons, from, to)), HoldMessage.Type.ENDED);
        });
        publish(ended);
    }

    /** Decides the end of a live hold; the caller holds the lock and publishes the end after it. */
    private HoldEnd end(Hold h, HoldEnd.Reason reason, long now) {
        HoldEnd e = new HoldEnd(h.id, h.peer, h.blocks, h.blocks.length * settings.blockLength(), reason,
                Math.max(0, now - h.createdAt), h.renewals);
        h.end = e;
        live.remove(h.id);
        PeerHolds p = peers.get(h.peer);
        if (p != null) {
            p.remove(h);
            if (p.holds == 0) {
                peers.remove(h.peer);
            }
        }
        heldBlocks -= h.blocks.length;
        endCounts.merge(reason, 1L, Long::sum);
        if (h.queued && ++endedInQueue > 1024 && endedInQueue > 2 * live.size()) {
            // ended holds wait in the deadline queue until their deadline; drop them in one pass
            // when they outnumber the live ones, so a fast create-release churn keeps memory flat
            deadlines.removeIf(OwnerSide::dropIfEnded);
            endedInQueue = 0;
        }
        return e;
    }

    private static boolean dropIfEnded(Hold h) {
        if (h.end == null) {
            return false;
        }
        h.queued = false;
        return true;
    }

    private void publish(List<HoldEnd> ended) {
        for (HoldEnd e : ended) {
            ends.add(e);
            signals.holdEnded(e);
        }
    }

    @Nullable Hold find(long id) {
        lock.lock();
        try {
            return live.get(id);
        } finally {
            lock.unlock();
        }
    }

    /** Fills the owner's share of the stats. */
    long[] counts() {
        lock.lock();
        try {
            return new long[] {live.size(), heldBlocks, heldBlocks * settings.blockLength(), created,
                endCounts.get(HoldEnd.Reason.RELEASED), endCounts.get(HoldEnd.Reason.ABANDONED),
                endCounts.get(HoldEnd.Reason.EXPIRED), endCounts.get(HoldEnd.Reason.CANCELLED),
                endCounts.get(HoldEnd.Reason.PEER_REMOVED), endCounts.get(HoldEnd.Reason.CLOSED), renewalsGranted,
                renewalsRefused};
        } finally {
            lock.unlock();
        }
    }
}
