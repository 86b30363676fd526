package io.blockxfer.benchmarks;

import io.blockxfer.holds.Hold;
import io.blockxfer.holds.Holds;
import io.blockxfer.holds.Lease;
import io.blockxfer.holds.ManualHoldClock;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.NotificationHandler;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * An owner and a holder of one backend in this JVM ("owner" and "holder" to each other), with
 * holds on one manual clock and manual ticks, driven from one thread: each step waits for exactly the
 * notifications it expects ({@link #awaitOne}, {@link #drainUntil}), so it costs what its messages
 * cost on a backend that delivers at once (loopback) or later (UCX). Counts the bytes of the
 * notifications each side received.
 *
 * <p><b>Thread safety:</b> confined to one thread.
 */
final class HoldsRig implements AutoCloseable {

    static final Duration TTL = Duration.ofSeconds(10);
    private static final long LIMIT_NANOS = TimeUnit.SECONDS.toNanos(60);

    final DataTransport ownerTransport;
    final DataTransport holderTransport;
    final ManualHoldClock clock = new ManualHoldClock();
    final Holds owner;
    final Holds holder;
    long ownerReceivedBytes;
    long holderReceivedBytes;
    long ownerReceived;
    long holderReceived;
    private final NotificationHandler ownerFeed;
    private final NotificationHandler holderFeed;

    HoldsRig(String backend, int blocks) {
        ownerTransport = open(backend, "owner", blocks);
        holderTransport = open(backend, "holder", blocks);
        ownerTransport.addPeer("holder", holderTransport.localDescriptor());
        holderTransport.addPeer("owner", ownerTransport.localDescriptor());
        owner = Holds.builder(ownerTransport).clock(clock).manualTicks().build();
        holder = Holds.builder(holderTransport).clock(clock).manualTicks().build();
        NotificationHandler o = owner.handler(n -> { });
        NotificationHandler h = holder.handler(n -> { });
        ownerFeed = n -> {
            ownerReceived++;
            ownerReceivedBytes += n.payloadLength();
            o.onNotification(n);
        };
        holderFeed = n -> {
            holderReceived++;
            holderReceivedBytes += n.payloadLength();
            h.onNotification(n);
        };
    }

    private static DataTransport open(String backend, String name, int blocks) {
        return Transports.select(backend, HoldsRig.class.getClassLoader()).open(TransportConfig.builder(
                RegionSpec.allocate(blocks, 4096)).agentName("bench-" + name).build());
    }

    /** Carries notifications both ways until neither side has any (a backend that delivers them at once). */
    void drain() {
        while (ownerTransport.pollNotifications(ownerFeed) + holderTransport.pollNotifications(holderFeed) > 0) {
            // again: an answer may have produced another message
        }
    }

    /** Carries notifications both ways until {@code done} holds (a backend that delivers them later). */
    void drainUntil(BooleanSupplier done) {
        long until = System.nanoTime() + LIMIT_NANOS;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > until) {
                throw new IllegalStateException("the notifications did not arrive within 60 s: owner " + owner.stats()
                        + ", holder " + holder.stats() + "; transports " + ownerTransport.notificationStats() + ", "
                        + holderTransport.notificationStats());
            }
            drain();
            Thread.onSpinWait();
        }
    }

    /** Waits for the next notification of {@code t} and hands it to {@code feed}. */
    static void awaitOne(DataTransport t, NotificationHandler feed) {
        try {
            for (int i = 0; i < 60; i++) {
                if (t.pollNotifications(feed, 1, TimeUnit.SECONDS) > 0) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new IllegalStateException("no notification within 60 s");
    }

    /**
     * One pull hand-off without a transfer: create, accept (its renewal goes out), the owner's answer,
     * its confirmation, the release and the end; each side waits for exactly the notification it
     * expects, as in {@link HoldsBench}'s ceiling. Returns the ends seen (1).
     */
    int handOff(int[] blocks) {
        Hold h = owner.create("holder", blocks, TTL);
        Lease l = holder.accept("owner", h.grant());
        awaitOne(ownerTransport, ownerFeed);
        awaitOne(holderTransport, holderFeed);
        l.release();
        awaitOne(ownerTransport, ownerFeed);
        int[] ended = new int[1];
        owner.pollEnded(e -> ended[0]++);
        return ended[0];
    }

    @Override
    public void close() {
        owner.close();
        holder.close();
        ownerTransport.close();
        holderTransport.close();
    }
}
