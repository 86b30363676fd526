package io.blockxfer.tck;

import static io.blockxfer.tck.ConformanceRules.N10;
import static io.blockxfer.tck.ConformanceRules.N11;
import static io.blockxfer.tck.ConformanceRules.N9;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.Notification;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * N: the receiving side of notifications, between two transports of this JVM: the waiting poll
 * wakes on arrival and keeps its limit, interrupt and close rules; the subscriber gets what it
 * requests, one at a time; close ends waiters and the subscriber, and counts what it discards.
 *
 * <p><b>Thread safety:</b> JUnit makes one instance per rule; not shared.
 */
abstract class NotificationWaitRules extends RuleGroup {

    NotificationWaitRules(TransportConformanceSuite suite) {
        super(suite);
    }

    /** A sender and a receiver of this JVM, the sender with the receiver registered as "b". */
    private static DataTransport[] pair(Fixture fx) {
        DataTransport a = fx.initiator();
        DataTransport b = fx.initiator();
        a.addPeer("b", b.localDescriptor());
        return new DataTransport[] {a, b};
    }

    private static byte[] ascii(String s) {
        return NotificationRules.ascii(s);
    }

    @RuleTest(N9)
    public final void n9_closeEndsWaitersAndTheSubscriberAndCountsWhatItDiscards() throws Exception {
        require(Capability.NOTIFICATIONS);
        Fixture fx = fx();
        DataTransport[] p = pair(fx);
        DataTransport a = p[0];
        DataTransport b = p[1];
        CountDownLatch completed = new CountDownLatch(1);
        // a subscriber that requests nothing leaves what arrives queued
        b.notifications().subscribe(new Flow.Subscriber<Notification>() {
            @Override public void onSubscribe(Flow.Subscription s) {
            }
            @Override public void onNext(Notification n) {
            }
            @Override public void onError(Throwable t) {
            }
            @Override public void onComplete() {
                completed.countDown();
            }
        });
        String tg = NotificationRules.tag(fx, "queued");
        for (int i = 0; i < 2; i++) {
            a.sendNotification("b", ascii(tg + "-" + i));
        }
        long deadline = System.nanoTime() + fx.env.timeout().toNanos();
        while (b.notificationStats().queued() < 2 && System.nanoTime() < deadline) {
            fx.sleep(Duration.ofMillis(10));
        }
        assertEquals(2, b.notificationStats().queued(), fx.msg("two messages wait in the queue"));
        b.close();
        if (!completed.await(fx.env.shortWait().toMillis(), TimeUnit.MILLISECONDS)) {
            fail(fx.msg("close did not complete the notification subscriber"));
        }
        var stats = b.notificationStats();
        assertEquals(2, stats.discarded(), fx.msg("close counts the queued messages it discarded: " + stats));
        assertEquals(0, stats.queued(), fx.msg("nothing stays queued after close: " + stats));
        assertThrows(IllegalStateException.class, () -> b.pollNotifications(n -> { }),
                fx.msg("a poll after close throws"));
        DataTransport c = fx.initiator();
        CompletableFuture<Object> waiter = fx.start("waiter", () -> {
            try {
                return c.pollNotifications(n -> { }, 60, TimeUnit.SECONDS);
            } catch (IllegalStateException e) {
                return e;
            }
        });
        fx.sleep(fx.env.quiet());
        c.close();
        Object ended = waiter.get(fx.env.shortWait().toMillis(), TimeUnit.MILLISECONDS);
        if (!(ended instanceof IllegalStateException)) {
            fail(fx.msg("a thread waiting for notifications when the transport closed must throw"
                    + " IllegalStateException; it ended with " + ended));
        }
    }

    @RuleTest(N10)
    public final void n10_theWaitingPollWakesOnArrivalAndKeepsItsRules() throws Exception {
        require(Capability.NOTIFICATIONS);
        Fixture fx = fx();
        DataTransport[] p = pair(fx);
        DataTransport a = p[0];
        DataTransport b = p[1];
        assertThrows(IllegalArgumentException.class, () -> b.pollNotifications(n -> { }, -1, TimeUnit.SECONDS),
                fx.msg("a negative limit is refused"));
        assertThrows(IllegalArgumentException.class, () -> b.pollNotifications(n -> { }, 25, TimeUnit.HOURS),
                fx.msg("a limit over DataTransport.MAX_WAIT is refused"));
        long start = System.nanoTime();
        int none = b.pollNotifications(n -> { }, fx.env.quiet().toMillis(), TimeUnit.MILLISECONDS);
        long took = System.nanoTime() - start;
        assertEquals(0, none, fx.msg("a wait with nothing to deliver returns 0"));
        assertTrue(took >= fx.env.quiet().toNanos() - TimeUnit.MILLISECONDS.toNanos(2),
                fx.msg("a wait with nothing to deliver keeps its limit (" + took / 1_000_000 + " ms)"));
        List<Notification> got = new CopyOnWriteArrayList<>();
        CompletableFuture<Long> waiter = fx.start("waiter", () -> {
            long s = System.nanoTime();
            b.pollNotifications(got::add, 60, TimeUnit.SECONDS);
            return System.nanoTime() - s;
        });
        fx.sleep(fx.env.quiet());
        long sent = System.nanoTime();
        a.sendNotification("b", ascii(NotificationRules.tag(fx, "wake")));
        waiter.get(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS);
        long woke = System.nanoTime() - sent;
        assertEquals(1, got.size(), fx.msg("the waiter delivered the message"));
        assertTrue(woke < fx.env.wake().toNanos() + fx.env.quiet().toNanos(), fx.msg("a waiter parked on a"
                + " 60 s limit returned " + woke / 1_000_000 + " ms after a message was sent; the bound is "
                + (fx.env.wake().toMillis() + fx.env.quiet().toMillis()) + " ms"));
        String kept = NotificationRules.tag(fx, "kept");
        a.sendNotification("b", ascii(kept));
        long deadline = System.nanoTime() + fx.env.timeout().toNanos();
        while (b.notificationStats().queued() < 1 && System.nanoTime() < deadline) {
            fx.sleep(Duration.ofMillis(5));
        }
        CompletableFuture<Object> interrupted = fx.start("interrupted waiter", () -> {
            Thread.currentThread().interrupt();
            try {
                return b.pollNotifications(n -> { }, 60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                return e;
            }
        });
        assertTrue(interrupted.get(fx.env.shortWait().toMillis(), TimeUnit.MILLISECONDS) instanceof InterruptedException,
                fx.msg("an interrupted thread's wait throws InterruptedException"));
        List<Notification> after = new CopyOnWriteArrayList<>();
        b.pollNotifications(after::add);
        assertEquals(1, after.size(), fx.msg("an interrupted wait consumed nothing: " + after));
        assertTrue(after.get(0).payloadEquals(ascii(kept)), fx.msg("the message the interrupted wait left"));
    }

    @RuleTest(N11)
    public final void n11_theSubscriberGetsWhatItRequests() throws Exception {
        require(Capability.NOTIFICATIONS);
        Fixture fx = fx();
        DataTransport[] p = pair(fx);
        DataTransport a = p[0];
        DataTransport b = p[1];
        List<Notification> got = new CopyOnWriteArrayList<>();
        AtomicReference<Flow.Subscription> subscription = new AtomicReference<>();
        CountDownLatch two = new CountDownLatch(2);
        Flow.Subscriber<Notification> first = new Flow.Subscriber<>() {
            @Override public void onSubscribe(Flow.Subscription s) {
                subscription.set(s);
                s.request(2);
            }
            @Override public void onNext(Notification n) {
                got.add(n);
                two.countDown();
            }
            @Override public void onError(Throwable t) {
            }
            @Override public void onComplete() {
            }
        };
        b.notifications().subscribe(first);
        String tg = NotificationRules.tag(fx, "demand");
        for (int i = 0; i < 5; i++) {
            a.sendNotification("b", ascii(tg + "-" + i));
        }
        assertTrue(two.await(fx.env.timeout().toMillis(), TimeUnit.MILLISECONDS),
                fx.msg("the subscriber received what it requested: " + got));
        long deadline = System.nanoTime() + fx.env.timeout().toNanos();
        while (b.notificationStats().received() < 5 && System.nanoTime() < deadline) {
            fx.sleep(Duration.ofMillis(5));
        }
        fx.sleep(fx.env.quiet());
        assertEquals(2, got.size(), fx.msg("a subscriber that requested 2 received " + got.size()));
        assertEquals(3, b.notificationStats().queued(), fx.msg("what was not requested stays queued"));
        AtomicReference<Throwable> refused = new AtomicReference<>();
        CountDownLatch secondSignalled = new CountDownLatch(1);
        b.notifications().subscribe(new Flow.Subscriber<Notification>() {
            @Override public void onSubscribe(Flow.Subscription s) {
                s.request(10);
            }
            @Override public void onNext(Notification n) {
                refused.set(new AssertionError("a second subscriber received " + n));
                secondSignalled.countDown();
            }
            @Override public void onError(Throwable t) {
                refused.set(t);
                secondSignalled.countDown();
            }
            @Override public void onComplete() {
                secondSignalled.countDown();
            }
        });
        secondSignalled.await(fx.env.shortWait().toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(refused.get() instanceof IllegalStateException,
                fx.msg("a second concurrent subscriber is refused with IllegalStateException: " + refused.get()));
        java.util.Objects.requireNonNull(subscription.get(), "the first subscriber's subscription").cancel();
        fx.sleep(fx.env.quiet());
        List<Notification> rest = new CopyOnWriteArrayList<>();
        b.pollNotifications(rest::add);
        assertEquals(3, rest.size(), fx.msg("after the subscriber cancelled, polls take what it left: " + rest));
        assertEquals(2, got.size(), fx.msg("a cancelled subscriber receives nothing more"));
        AtomicReference<Throwable> bad = new AtomicReference<>();
        CountDownLatch errored = new CountDownLatch(1);
        b.notifications().subscribe(new Flow.Subscriber<Notification>() {
            @Override public void onSubscribe(Flow.Subscription s) {
                s.request(0);
            }
            @Override public void onNext(Notification n) {
            }
            @Override public void onError(Throwable t) {
                bad.set(t);
                errored.countDown();
            }
            @Override public void onComplete() {
            }
        });
        errored.await(fx.env.shortWait().toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(bad.get() instanceof IllegalArgumentException,
                fx.msg("request(0) signals IllegalArgumentException (Reactive Streams rule 3.9): " + bad.get()));
    }
}
