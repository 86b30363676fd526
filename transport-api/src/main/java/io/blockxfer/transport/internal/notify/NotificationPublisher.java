package io.blockxfer.transport.internal.notify;

import static io.blockxfer.transport.internal.TransportLog.LOG;


import io.blockxfer.transport.Notification;
import java.lang.System.Logger.Level;
import java.util.Objects;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * The received notifications as a {@link Flow.Publisher} for one subscriber at a time. Each
 * subscription has a virtual thread of its own that takes notifications from the
 * {@link NotificationInbox} while the subscriber has demand, waiting for arrivals as a wait does
 * ({@link NotificationWaits#awaitArrival}), and calls {@code onNext}, {@code onError} and
 * {@code onComplete} one at a time, never inside a native callback. Without demand it parks and
 * leaves queued notifications to polls. The Reactive Streams rules kept: {@code onSubscribe} first;
 * a request of 0 or less cancels and signals {@link IllegalArgumentException}; a cancelled
 * subscription receives nothing more; a second concurrent subscriber gets
 * {@link IllegalStateException}; close completes the subscriber.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class NotificationPublisher implements Flow.Publisher<Notification> {

    /** The longest the delivery thread parks between looks at a quiet transport. */
    private static final long RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final NotificationInbox inbox;
    private final NotificationWaits waits;
    private final String label;
    private final AtomicReference<@Nullable Delivery> active = new AtomicReference<>();
    private volatile boolean closed;

    public NotificationPublisher(NotificationInbox inbox, NotificationWaits waits, String label) {
        this.inbox = inbox;
        this.waits = waits;
        this.label = label;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super Notification> subscriber) {
        Objects.requireNonNull(subscriber, "subscriber");
        Delivery d = new Delivery(subscriber);
        if (closed) {
            refuse(subscriber, new IllegalStateException("transport closed: " + label));
            return;
        }
        if (!active.compareAndSet(null, d)) {
            refuse(subscriber, new IllegalStateException("the notifications of " + label + " already have a"
                    + " subscriber; cancel its subscription first"));
            return;
        }
        d.start();
    }

    private static void refuse(Flow.Subscriber<? super Notification> subscriber, Throwable why) {
        subscriber.onSubscribe(new Flow.Subscription() {
            @Override
            public void request(long n) {
            }

            @Override
            public void cancel() {
            }
        });
        subscriber.onError(why);
    }

    /** The transport closed: the subscriber, if any, is completed by its delivery thread. */
    public void close() {
        closed = true;
        Delivery d = active.get();
        if (d != null) {
            d.wake();
        }
    }

    /** One subscription and its delivery thread. */
    private final class Delivery implements Flow.Subscription {
        private final Flow.Subscriber<? super Notification> subscriber;
        private final AtomicLong demand = new AtomicLong();
        private volatile boolean cancelled;
        private volatile @Nullable Throwable badRequest;
        private volatile @Nullable Thread thread;

        Delivery(Flow.Subscriber<? super Notification> subscriber) {
            this.subscriber = subscriber;
        }

        void start() {
            thread = Thread.ofVirtual().name("blockxfer-notifications-" + label).start(this::run);
        }

        void wake() {
            Thread t = thread;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }

        @Override
        public void request(long n) {
            if (n <= 0) {
                badRequest = new IllegalArgumentException("Reactive Streams rule 3.9: request(" + n
                        + ") must ask for a positive number of notifications");
                cancelled = true;
            } else {
                demand.getAndAccumulate(n, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b);
            }
            wake();
        }

        @Override
        public void cancel() {
            cancelled = true;
            active.compareAndSet(this, null); // a new subscriber may come at once; this one gets nothing more
            wake();
        }

        private void run() {
            try {
                subscriber.onSubscribe(this);
                deliver();
            } catch (RuntimeException | Error e) {
                LOG.log(Level.WARNING, () -> label + ": a notification subscriber threw; its subscription is"
                        + " cancelled: " + e);
            } finally {
                active.compareAndSet(this, null);
            }
        }

        private void deliver() {
            while (true) {
                Throwable bad = badRequest;
                if (bad != null) {
                    subscriber.onError(bad);
                    return;
                }
                if (cancelled) {
                    return;
                }
                if (closed) {
                    subscriber.onComplete();
                    return;
                }
                if (demand.get() == 0) {
                    LockSupport.parkNanos(this, RECHECK_NANOS);
                    continue;
                }
                Notification n = inbox.take();
                if (n == null) {
                    try {
                        waits.awaitArrival(RECHECK_NANOS, () -> cancelled || closed || badRequest != null);
                    } catch (InterruptedException e) {
                        // a delivery thread is interrupted by nobody but close; look again
                    } catch (IllegalStateException closing) {
                        closed = true;
                    }
                    continue;
                }
                if (cancelled || badRequest != null) {
                    inbox.putBack(n);
                    continue;
                }
                demand.decrementAndGet();
                subscriber.onNext(n);
            }
        }
    }
}
