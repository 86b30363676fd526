package io.blockxfer.cli.internal;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.Notification;
import io.blockxfer.transport.NotificationHandler;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.HdrHistogram.Histogram;

/**
 * The target's side of {@code bench --notify}: a thread of its own takes the target transport's
 * notifications with the waiting poll, {@link DataTransport#pollNotifications(
 * io.blockxfer.transport.NotificationHandler, long, TimeUnit)}, as a receiver that waits for them
 * would, and times each one whose {@link NotifyStamp} carries the tag of the armed run: from the
 * submit time in its payload to the moment the poll handed it over, by this host's
 * {@link System#nanoTime()} less the clock offset the initiator gave ({@link #arm}; 0 on one host,
 * where every process reads the same {@code CLOCK_MONOTONIC}). Notifications of other runs (a
 * warm-up, an earlier run) are taken and not counted, so the queue never fills.
 *
 * <p><b>Thread safety:</b> thread-safe; {@link #arm} and {@link #disarm} come from one controlling
 * thread at a time.
 */
public final class NotificationCollector implements AutoCloseable {

    private static final long POLL_LIMIT_MILLIS = 100;

    private final DataTransport transport;
    private final Thread taker;
    /** One handler for every poll: a spinning taker would otherwise make one per look. */
    private final NotificationHandler handler = this::onNotification;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition arrived = lock.newCondition();
    private volatile boolean closed;
    private volatile TakerStyle style = TakerStyle.WAIT;
    // guarded by lock
    private long armedTag = NotifyStamp.UNMEASURED;
    private long offsetNanos;
    private long count;
    private long early;
    private long awaited = Long.MAX_VALUE;
    private long droppedBefore;
    private Histogram latencies = NotifyTally.histogram();

    private NotificationCollector(DataTransport transport) {
        this.transport = transport;
        this.taker = Thread.ofPlatform().daemon().name("bench-notification-taker").unstarted(this::take);
    }

    /** The taking thread (tests look at its state). */
    Thread takerThread() {
        return taker;
    }

    /** Starts taking {@code target}'s notifications. */
    public static NotificationCollector start(DataTransport target) {
        NotificationCollector c = new NotificationCollector(target);
        c.taker.start();
        return c;
    }

    private void take() {
        while (!closed) {
            try {
                if (style == TakerStyle.WAIT) {
                    transport.pollNotifications(handler, POLL_LIMIT_MILLIS, TimeUnit.MILLISECONDS);
                } else if (transport.pollNotifications(handler) == 0) {
                    Thread.onSpinWait();
                }
            } catch (InterruptedException e) {
                return;
            } catch (IllegalStateException transportClosed) {
                return;
            }
        }
    }

    private void onNotification(Notification n) {
        long now = System.nanoTime();
        if (n.payloadLength() != NotifyStamp.BYTES) {
            return;
        }
        byte[] stamp = n.payload();
        long tag = NotifyStamp.tag(stamp);
        lock.lock();
        try {
            if (tag == NotifyStamp.UNMEASURED || tag != armedTag) {
                return;
            }
            long latency = now - offsetNanos - NotifyStamp.submitNanos(stamp);
            if (latency < 0) {
                early++;
                latency = 0;
            }
            latencies.recordValue(Math.min(latency, NotifyTally.HIGHEST_NANOS));
            if (++count >= awaited) {
                arrived.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Counts and times from now on the notifications stamped with {@code tag}, their submit times
     * read by this host's clock as {@code submit + offsetNanos}, taken in the given style from now on.
     *
     * @throws IllegalArgumentException for the tag {@link NotifyStamp#UNMEASURED}
     */
    public void arm(long tag, long offsetNanos, TakerStyle style) {
        if (tag == NotifyStamp.UNMEASURED) {
            throw new IllegalArgumentException("the tag " + tag + " marks notifications that are not measured");
        }
        lock.lock();
        try {
            armedTag = tag;
            this.offsetNanos = offsetNanos;
            count = 0;
            early = 0;
            latencies = NotifyTally.histogram();
            droppedBefore = transport.notificationStats().dropped();
        } finally {
            lock.unlock();
        }
        this.style = style;
    }

    /**
     * Waits until {@code expected} notifications of the armed run arrived or {@code limit} passed,
     * then stops counting them. The notifications the transport dropped meanwhile (its queue full:
     * this thread fell behind) count as dropped; they will not arrive.
     *
     * @return what arrived of the armed run
     */
    public NotifyTally disarm(long expected, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        lock.lock();
        try {
            awaited = expected;
            while (count < expected && !closed) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                try {
                    var unused = arrived.awaitNanos(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            NotifyTally tally = new NotifyTally(count, early, transport.notificationStats().dropped() - droppedBefore,
                    latencies);
            armedTag = NotifyStamp.UNMEASURED;
            awaited = Long.MAX_VALUE;
            latencies = NotifyTally.histogram();
            count = 0;
            early = 0;
            return tally;
        } finally {
            lock.unlock();
        }
    }

    /** Stops taking notifications (before the transport closes); idempotent. */
    @Override
    public void close() {
        closed = true;
        lock.lock();
        try {
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
        taker.interrupt();
        try {
            taker.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
