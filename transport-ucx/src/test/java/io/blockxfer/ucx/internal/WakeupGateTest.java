package io.blockxfer.ucx.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The sleep handshake between submitters and the progress thread, interleaving by interleaving: in
 * each order of a submit and the thread's decision to sleep, either the submitter wakes the thread
 * or the thread stays awake, even when the thread's own look at its queue is stale (which a
 * StoreLoad reordering of the submitter's publish and its read of the thread's state produces).
 */
class WakeupGateTest {

    @Test
    void aSubmitAfterTheThreadAnnouncedItsSleepWakesIt() {
        WakeupGate gate = new WakeupGate();
        assertTrue(gate.maySleep(WakeupGate.WAITING));
        assertEquals(WakeupGate.WAITING, gate.published(), "the submitter must see the sleep and signal");
        gate.awake();
        assertTrue(gate.maySleep(WakeupGate.PARKED));
        assertEquals(WakeupGate.PARKED, gate.published(), "the submitter must see the park and unpark");
    }

    @Test
    void aSubmitBeforeTheThreadAnnouncedItsSleepKeepsItAwakeEvenIfItsQueueStillLooksEmpty() {
        WakeupGate gate = new WakeupGate();
        // the submitter publishes while the thread runs: it wakes nobody ...
        assertEquals(WakeupGate.RUNNING, gate.published());
        // ... so the thread must not sleep, whatever its (possibly stale) look at the queue says
        assertFalse(gate.maySleep(WakeupGate.WAITING), "the thread would sleep on a published submit");
        gate.awake();
        assertTrue(gate.maySleep(WakeupGate.WAITING), "once it looked again, it may sleep");
    }

    @Test
    void aDormantThreadIsNotWokenButSeesTheSubmitLater() {
        WakeupGate gate = new WakeupGate();
        assertTrue(gate.maySleep(WakeupGate.DORMANT));
        assertEquals(WakeupGate.DORMANT, gate.published());
        gate.awake();
        assertEquals(WakeupGate.RUNNING, gate.published());
        assertFalse(gate.maySleep(WakeupGate.DORMANT));
    }

    /**
     * Many submitters and one thread that sleeps between rounds, with real threads: every command
     * is taken within a bound. The thread's sleep ends only by a wake-up (or a 10 s safety net that
     * the assertion catches), so one missed wake-up fails the test.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void noCommandWaitsForAnUnrelatedWakeup() throws Exception {
        WakeupGate gate = new WakeupGate();
        ConcurrentLinkedQueue<Long> queue = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger taken = new AtomicInteger();
        long[] worstNanos = new long[1];
        Thread consumer = Thread.ofPlatform().start(() -> {
            while (!stop.get()) {
                Long submitted;
                while ((submitted = queue.poll()) != null) {
                    worstNanos[0] = Math.max(worstNanos[0], System.nanoTime() - submitted);
                    taken.incrementAndGet();
                }
                if (gate.maySleep(WakeupGate.PARKED) && queue.isEmpty() && !stop.get()) {
                    LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(10));
                }
                gate.awake();
            }
        });
        int perProducer = 20_000;
        Thread[] producers = new Thread[3];
        for (int p = 0; p < producers.length; p++) {
            producers[p] = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < perProducer; i++) {
                    queue.add(System.nanoTime());
                    if (gate.published() == WakeupGate.PARKED) {
                        LockSupport.unpark(consumer);
                    }
                    if (i % 64 == 0) {
                        LockSupport.parkNanos(20_000);
                    }
                }
            });
        }
        for (Thread t : producers) {
            t.join();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (taken.get() < producers.length * perProducer && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        stop.set(true);
        LockSupport.unpark(consumer);
        consumer.join();
        assertEquals(producers.length * perProducer, taken.get(), "commands were never taken");
        assertTrue(worstNanos[0] < TimeUnit.SECONDS.toNanos(5), "a command waited " + worstNanos[0] / 1_000_000
                + " ms: a wake-up was lost");
    }
}
