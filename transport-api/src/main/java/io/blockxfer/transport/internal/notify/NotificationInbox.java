package io.blockxfer.transport.internal.notify;

import io.blockxfer.transport.Notification;
import io.blockxfer.transport.NotificationHandler;
import io.blockxfer.transport.NotificationStats;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The transport's bounded queue of received notifications, in the order they arrived, and its
 * counts. A notification that finds the queue full is dropped and counted, overall and for its
 * sender, and the sender's next queued notification carries its count
 * ({@link Notification#droppedBefore()}); the backend is never blocked. Each queued notification
 * is taken exactly once, by a poll, a wait or the subscriber; at close the rest are discarded and
 * counted.
 *
 * <p>The capacity bounds what is held: queued, and taken by a drain whose handler has not had the
 * whole batch yet ({@link #drainTo}).
 *
 * <p>Memory: the ring of {@code capacity} references, at most {@code capacity} notifications of at
 * most {@link Notification#MAX_PAYLOAD_BYTES} each, and a drop count for at most
 * {@value #MAX_DROP_SENDERS} senders (beyond that, drops are counted overall only).
 *
 * <p><b>Thread safety:</b> thread-safe; one short lock per offer and per take.
 */
public final class NotificationInbox {

    /** Senders whose drops are counted one by one, at most. */
    static final int MAX_DROP_SENDERS = 4096;
    /** Notifications a drain takes under one lock at most. */
    static final int TAKE_BATCH = 64;

    /** What {@link #offer} did. */
    public enum Offer {
        QUEUED, DROPPED, CLOSED
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Notification[] ring;
    private final Runnable arrived;
    private final Map<String, Long> droppedBySender = new HashMap<>();
    // guarded by lock
    private int head;
    private int size;
    /** Taken by a drain and not yet handed to its handler: they still count against the capacity. */
    private int taken;
    /** {@code size}, written under the lock, read without it: a waiting poll looks here while it spins. */
    private volatile int visibleSize;
    private boolean closed;
    private long received;
    private long delivered;
    private long dropped;
    private long discarded;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();

    /**
     * @param arrived wakes the callers waiting for notifications; run, outside the lock, when an
     *     offer or a put-back makes an empty queue non-empty (a caller parks only after it found the
     *     queue empty, so one wake per empty-to-non-empty step wakes every caller that could sleep)
     */
    public NotificationInbox(int capacity, Runnable arrived) {
        this.ring = new Notification[capacity];
        this.arrived = arrived;
    }

    /**
     * Queues a notification that passed every check, unless the queue is full or closed. The
     * notification is built here, once its drop count is known.
     */
    public Offer offer(String sender, String senderAgent, Notification.Kind kind, long transferId, byte[] payload,
            boolean authenticated) {
        boolean first;
        lock.lock();
        try {
            if (closed) {
                return Offer.CLOSED;
            }
            if (size + taken >= ring.length) {
                dropped++;
                Long before = droppedBySender.get(sender);
                if (before != null || droppedBySender.size() < MAX_DROP_SENDERS) {
                    droppedBySender.put(sender, before == null ? 1 : before + 1);
                }
                return Offer.DROPPED;
            }
            Long before = droppedBySender.isEmpty() ? null : droppedBySender.remove(sender);
            int tail = head + size;
            ring[tail >= ring.length ? tail - ring.length : tail] = new Notification(sender, senderAgent, kind,
                    transferId, payload, authenticated, before == null ? 0 : before);
            first = size == 0;
            visibleSize = ++size;
            received++;
        } finally {
            lock.unlock();
        }
        if (first) {
            arrived.run();
        }
        return Offer.QUEUED;
    }

    /** Takes the oldest notification, or null when none is queued (or the inbox closed). */
    public @Nullable Notification take() {
        if (visibleSize == 0) {
            return null; // the common look of a poll that finds nothing: no lock
        }
        lock.lock();
        try {
            if (size == 0) {
                return null;
            }
            Notification n = ring[head];
            ring[head] = null;
            head = (head + 1) % ring.length;
            visibleSize = --size;
            delivered++;
            return n;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Puts back a notification taken but not delivered (its subscriber cancelled meanwhile), as the
     * oldest again; dropped and counted if the queue filled up meanwhile, discarded if it closed.
     */
    public void putBack(Notification n) {
        boolean first;
        lock.lock();
        try {
            delivered--;
            if (closed) {
                discarded++;
                return;
            }
            if (size + taken >= ring.length) {
                dropped++;
                received--;
                return;
            }
            head = (head - 1 + ring.length) % ring.length;
            ring[head] = n;
            first = size == 0;
            visibleSize = ++size;
        } finally {
            lock.unlock();
        }
        if (first) {
            arrived.run();
        }
    }

    /**
     * Delivers up to {@code max} queued notifications to {@code handler}, one at a time, taken up
     * to {@value #TAKE_BATCH} at a time under one lock (a drain does not meet the receiving thread
     * at the lock once per notification); a taken batch counts against the capacity until the
     * handler has had all of it (at most {@value #TAKE_BATCH} notifications are held that way). A
     * handler that throws leaves the rest queued, as the oldest, in their order.
     *
     * @return how many were delivered
     */
    public int drainTo(NotificationHandler handler, int max) {
        int queued = visibleSize;
        if (queued == 0 || max <= 0) {
            return 0;
        }
        Notification[] batch = new Notification[Math.min(Math.min(TAKE_BATCH, max), queued)]; // no larger than needed
        int count = 0;
        while (count < max) {
            int taken = takeInto(batch, Math.min(batch.length, max - count));
            if (taken == 0) {
                break;
            }
            int handed = 0;
            try {
                while (handed < taken) {
                    Notification n = batch[handed];
                    batch[handed++] = null;
                    count++;
                    handler.onNotification(n);
                }
            } finally {
                settle(batch, handed, taken);
            }
            if (taken == batch.length && batch.length < TAKE_BATCH && count < max) {
                batch = new Notification[Math.min(TAKE_BATCH, max - count)]; // more came meanwhile
            }
        }
        return count;
    }

    /** Takes up to {@code limit} of the oldest into {@code into}, held against the capacity until settled. */
    private int takeInto(Notification[] into, int limit) {
        if (visibleSize == 0) {
            return 0;
        }
        lock.lock();
        try {
            int n = Math.min(limit, size);
            for (int i = 0; i < n; i++) {
                into[i] = ring[head];
                ring[head] = null;
                head = head + 1 == ring.length ? 0 : head + 1;
            }
            size -= n;
            visibleSize = size;
            taken += n;
            delivered += n;
            return n;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Ends a taken batch: {@code batch[handed..taken)} were not handed to the handler (it threw)
     * and go back as the oldest, in their order (discarded and counted if the inbox closed).
     */
    private void settle(Notification[] batch, int handed, int taken) {
        boolean first;
        lock.lock();
        try {
            this.taken -= taken;
            first = size == 0 && handed < taken && !closed;
            for (int i = taken - 1; i >= handed; i--) {
                delivered--;
                if (closed) {
                    discarded++;
                } else {
                    head = head == 0 ? ring.length - 1 : head - 1;
                    ring[head] = batch[i];
                    size++;
                }
                batch[i] = null;
            }
            visibleSize = size;
        } finally {
            lock.unlock();
        }
        if (first) {
            arrived.run();
        }
    }

    /** Whether a notification is queued. */
    public boolean isEmpty() {
        return visibleSize == 0;
    }

    /** Counts a notification handed to the backend. */
    public void countSent() {
        sent.incrementAndGet();
    }

    /** Counts a notification that failed a check. */
    public void countRefused() {
        refused.incrementAndGet();
    }

    /** Closes the queue: what is queued is discarded and counted, and nothing is queued from now on. */
    public int close() {
        lock.lock();
        try {
            if (closed) {
                return 0;
            }
            closed = true;
            int gone = size;
            discarded += size;
            for (int i = 0; i < size; i++) {
                ring[(head + i) % ring.length] = null;
            }
            size = 0;
            visibleSize = 0;
            droppedBySender.clear();
            return gone;
        } finally {
            lock.unlock();
        }
    }

    /** The counts now. */
    public NotificationStats stats() {
        lock.lock();
        try {
            return new NotificationStats(sent.get(), received, delivered, size, refused.get(), dropped, discarded);
        } finally {
            lock.unlock();
        }
    }
}
