package io.blockxfer.holds;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.Notification;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * Two loopback transports that registered each other (the owner knows the holder as "holder",
 * the holder the owner as "owner"), each with holds on a manual clock and manual ticks, and
 * {@link #exchange()} to carry the hold messages between them deterministically.
 */
final class Pair implements AutoCloseable {

    static final int BLOCKS = 16;
    static final int BLOCK = 512;
    static final Duration TTL = Duration.ofSeconds(2);

    final DataTransport ownerTransport;
    final DataTransport holderTransport;
    final ManualHoldClock ownerClock = new ManualHoldClock();
    final ManualHoldClock holderClock = new ManualHoldClock();
    final Holds owner;
    final Holds holder;
    /** Notifications that were not hold messages. */
    final List<Notification> others = new CopyOnWriteArrayList<>();

    Pair() {
        this(b -> b, b -> b);
    }

    Pair(UnaryOperator<Holds.Builder> ownerConfig, UnaryOperator<Holds.Builder> holderConfig) {
        ownerTransport = open("prefill-0");
        holderTransport = open("decode-0");
        ownerTransport.addPeer("holder", holderTransport.localDescriptor());
        holderTransport.addPeer("owner", ownerTransport.localDescriptor());
        owner = ownerConfig.apply(Holds.builder(ownerTransport).clock(ownerClock).manualTicks()).build();
        holder = holderConfig.apply(Holds.builder(holderTransport).clock(holderClock).manualTicks()).build();
    }

    static DataTransport open(String name) {
        return Transports.open(TransportConfig.builder(RegionSpec.allocate(BLOCKS, BLOCK)).agentName(name)
                .transport("loopback").build());
    }

    /** Moves both clocks. */
    void advance(Duration d) {
        ownerClock.advance(d);
        holderClock.advance(d);
    }

    /** Ticks both sides, holder first, and carries what that sent. */
    void tick() throws InterruptedException {
        holder.tick();
        exchange();
        owner.tick();
        exchange();
    }

    /** Carries notifications both ways until neither side has any left. */
    void exchange() throws InterruptedException {
        for (int quiet = 0; quiet < 3; ) {
            int n = ownerTransport.pollNotifications(owner.handler(others::add))
                    + holderTransport.pollNotifications(holder.handler(others::add));
            if (n == 0) {
                quiet++;
                Thread.sleep(2);
            } else {
                quiet = 0;
            }
        }
    }

    /** Every end the owner reports now. */
    List<HoldEnd> ends() {
        List<HoldEnd> got = new ArrayList<>();
        owner.pollEnded(got::add);
        return got;
    }

    /** Waits for at least one end. */
    List<HoldEnd> awaitEnds() throws InterruptedException {
        List<HoldEnd> got = new ArrayList<>();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (got.isEmpty() && System.nanoTime() < until) {
            exchange();
            owner.pollEnded(got::add, 20, TimeUnit.MILLISECONDS);
        }
        return got;
    }

    static void fill(DataTransport t, int block, byte value) {
        t.region().segment().asSlice((long) block * BLOCK, BLOCK).fill(value);
    }

    static boolean holds(DataTransport t, int block, byte value) {
        MemorySegment s = t.region().segment().asSlice((long) block * BLOCK, BLOCK);
        for (long i = 0; i < BLOCK; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, i) != value) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        owner.close();
        holder.close();
        ownerTransport.close();
        holderTransport.close();
    }
}
