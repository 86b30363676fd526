package io.blockxfer.cli.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import io.blockxfer.transport.spi.TransportProvider;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The target's side of {@code bench --notify} on the loopback backend: the collector counts and
 * times only the notifications stamped with the armed run's tag, waits for the count it is told to
 * expect (bounded), counts arrivals "before their submit" by a wrong clock offset as early, and its
 * tally survives the trip through bytes; the taking thread waits or spins as the run asks.
 */
class NotificationCollectorTest {

    private static final String PEER = "target";

    private DataTransport initiator;
    private DataTransport target;
    private NotificationCollector collector;

    @BeforeEach
    void open() {
        TransportProvider loopback = Transports.select("loopback", getClass().getClassLoader());
        initiator = loopback.open(TransportConfig.builder(RegionSpec.allocate(4, 4096)).agentName("initiator").build());
        target = loopback.open(TransportConfig.builder(RegionSpec.allocate(4, 4096)).agentName("target").build());
        initiator.addPeer(PEER, target.localDescriptor());
        collector = NotificationCollector.start(target);
    }

    @AfterEach
    void close() {
        collector.close();
        initiator.close();
        target.close();
    }

    /** Writes block 0 to block 1 with {@code payload} as its notification, and waits until it is done. */
    private void write(byte[] payload) throws InterruptedException {
        long id = initiator.writeBlocks(PEER, new int[] {0}, new int[] {1}, payload);
        boolean[] done = new boolean[1];
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!done[0] && System.nanoTime() < end) {
            initiator.poll(PEER, (t, ok) -> done[0] |= t == id && ok, 100, TimeUnit.MILLISECONDS);
        }
        assertTrue(done[0], "transfer " + id + " done");
    }

    private static byte[] stamp(long tag) {
        byte[] b = NotifyStamp.buffer();
        NotifyStamp.write(b, tag, System.nanoTime());
        return b;
    }

    @Test
    void onlyTheArmedRunsNotificationsAreCountedAndTimed() throws Exception {
        collector.arm(7, 0, TakerStyle.WAIT);
        for (int i = 0; i < 5; i++) {
            write(stamp(7));
            write(stamp(8)); // another run's
            write(new byte[] {1, 2, 3}); // not a stamp
        }
        write(stamp(NotifyStamp.UNMEASURED)); // a warm-up's
        NotifyTally tally = collector.disarm(5, Duration.ofSeconds(10));
        assertEquals(5, tally.count(), tally::toString);
        assertEquals(5, tally.latencies().getTotalCount());
        assertEquals(0, tally.early());
        assertTrue(tally.latencies().getMinValue() > 0, "timed from the submit");

        collector.arm(8, 0, TakerStyle.WAIT);
        write(stamp(7)); // the disarmed run's
        assertEquals(0, collector.disarm(0, Duration.ZERO).count());
    }

    @Test
    void disarmWaitsForTheExpectedCountUpToItsLimit() {
        collector.arm(11, 0, TakerStyle.WAIT);
        long start = System.nanoTime();
        NotifyTally tally = collector.disarm(1, Duration.ofMillis(300));
        long waited = System.nanoTime() - start;
        assertEquals(0, tally.count());
        assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(250), "waited " + waited + " ns");
    }

    @Test
    void anArrivalBeforeItsSubmitByTheCorrectedClockIsEarlyAndCountsAsZero() throws Exception {
        // as if the target's clock ran an hour ahead of the truth
        collector.arm(12, TimeUnit.HOURS.toNanos(1), TakerStyle.WAIT);
        write(stamp(12));
        NotifyTally tally = collector.disarm(1, Duration.ofSeconds(10));
        assertEquals(1, tally.count());
        assertEquals(1, tally.early());
        assertEquals(0, tally.latencies().getMaxValue());
    }

    @Test
    void theUnmeasuredTagCannotBeArmed() {
        assertThrows(IllegalArgumentException.class, () -> collector.arm(NotifyStamp.UNMEASURED, 0, TakerStyle.WAIT));
    }

    @Test
    void aTallyTravelsAsBytesAndGarbageIsRefused() throws Exception {
        collector.arm(13, 0, TakerStyle.WAIT);
        write(stamp(13));
        write(stamp(13));
        NotifyTally tally = collector.disarm(2, Duration.ofSeconds(10));
        byte[] bytes = tally.encode();
        NotifyTally back = NotifyTally.decode(bytes);
        assertEquals(2, back.count());
        assertEquals(tally.latencies(), back.latencies());
        assertArrayEquals(bytes, back.encode());
        assertThrows(IllegalArgumentException.class, () -> NotifyTally.decode(new byte[8]));
        byte[] wrongCount = bytes.clone();
        wrongCount[7] = 3; // count 3, two latencies
        assertThrows(IllegalArgumentException.class, () -> NotifyTally.decode(wrongCount));
        byte[] cut = java.util.Arrays.copyOf(bytes, bytes.length - 4);
        assertThrows(IllegalArgumentException.class, () -> NotifyTally.decode(cut));
    }

    /** How often in {@code looks} looks, a millisecond apart, the taking thread was parked. */
    private int parkedOf(int looks) throws InterruptedException {
        int parked = 0;
        for (int i = 0; i < looks; i++) {
            Thread.State state = collector.takerThread().getState();
            if (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING) {
                parked++;
            }
            Thread.sleep(1);
        }
        return parked;
    }

    @Test
    void aSpinningTakerPollsWithoutParkingAndAWaitingOneParksBetweenArrivals() throws Exception {
        collector.arm(14, 0, TakerStyle.SPIN);
        Thread.sleep(20); // the thread leaves the waiting poll it was in (at most its 100 ms limit)
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (parkedOf(1) > 0 && System.nanoTime() < end) {
            Thread.onSpinWait();
        }
        int spinningParked = parkedOf(200);
        write(stamp(14));
        assertEquals(1, collector.disarm(1, Duration.ofSeconds(10)).count(), "taken by the spinning thread");

        collector.arm(15, 0, TakerStyle.WAIT);
        Thread.sleep(20);
        int waitingParked = parkedOf(200);
        write(stamp(15));
        assertEquals(1, collector.disarm(1, Duration.ofSeconds(10)).count(), "taken by the waiting thread");
        // a thread switched off its core still reads RUNNABLE, so the spinning one is never seen parked
        // (but for an instant at the inbox's lock); the waiting one is parked but for its 20 us spins
        assertTrue(spinningParked <= 10, "the spinning taker was parked at " + spinningParked + " of 200 looks");
        assertTrue(waitingParked >= 150, "the waiting taker was parked at only " + waitingParked + " of 200 looks");
    }
}
