package io.blockxfer.transport.internal.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The backends' submit queue on its own: edges, wrap-around, many producers against one consumer,
 * outcomes of concurrent offers and polls checked against every sequential order, the bounded
 * back-pressure offer, and the park protocol that {@link MpscRing#isEmpty()} supports.
 */
class MpscRingTest {

    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(20);

    @Test
    void capacityIsAPowerOfTwoOfAtLeastTwo() {
        for (int bad : new int[] {-2, 0, 1, 3, 6, 100}) {
            assertThrows(IllegalArgumentException.class, () -> new MpscRing<Integer>(bad), "capacity " + bad);
        }
        assertEquals(2, new MpscRing<Integer>(2).capacity());
        assertThrows(NullPointerException.class, () -> new MpscRing<Integer>(2).offer(null));
    }

    @Test
    void anEmptyRingPollsNullAndAFullRingRefusesExactlyPastItsCapacity() {
        for (int capacity : new int[] {2, 4, 64}) {
            MpscRing<Integer> ring = new MpscRing<>(capacity);
            assertTrue(ring.isEmpty());
            assertNull(ring.poll());
            for (int i = 0; i < capacity; i++) {
                assertTrue(ring.offer(i), "slot " + i + " of " + capacity);
                assertFalse(ring.isEmpty());
            }
            assertEquals(capacity, ring.size());
            assertFalse(ring.offer(-1), "a full ring refuses");
            assertFalse(ring.offer(-1), "and keeps refusing");
            assertEquals(0, ring.poll());
            assertTrue(ring.offer(capacity), "one poll frees one slot");
            assertFalse(ring.offer(-1));
            for (int i = 1; i <= capacity; i++) {
                assertEquals(i, ring.poll());
            }
            assertNull(ring.poll());
            assertTrue(ring.isEmpty());
            assertEquals(0, ring.size());
        }
    }

    @Test
    void wrapsAroundManyTimesInStepWithASimpleQueue() {
        Random random = new Random(13);
        for (int capacity : new int[] {2, 8}) {
            MpscRing<Integer> ring = new MpscRing<>(capacity);
            ArrayDeque<Integer> model = new ArrayDeque<>();
            int next = 0;
            for (int step = 0; step < 1_000_000; step++) {
                if (random.nextInt(3) > 0) {
                    boolean accepted = ring.offer(next);
                    assertEquals(model.size() < capacity, accepted, "offer at step " + step);
                    if (accepted) {
                        model.add(next);
                    }
                    next++;
                } else {
                    assertEquals(model.poll(), ring.poll(), "poll at step " + step);
                }
                assertEquals(model.isEmpty(), ring.isEmpty());
            }
            assertTrue(next / capacity > 50_000, "the ring wrapped around many times");
        }
    }

    @Test
    void concurrentOffersNeverExceedTheCapacity() throws Exception {
        int producers = 4;
        MpscRing<Integer> ring = new MpscRing<>(8);
        AtomicInteger accepted = new AtomicInteger();
        CyclicBarrier start = new CyclicBarrier(producers + 1);
        CyclicBarrier end = new CyclicBarrier(producers + 1);
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            Thread t = new Thread(() -> {
                try {
                    while (true) {
                        start.await();
                        if (stop.get()) {
                            return;
                        }
                        for (int i = 0; i < 5; i++) {
                            if (ring.offer(i)) {
                                accepted.incrementAndGet();
                            }
                        }
                        end.await();
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            t.start();
            threads.add(t);
        }
        for (int round = 0; round < 2_000; round++) {
            accepted.set(0);
            start.await(20, TimeUnit.SECONDS);
            end.await(20, TimeUnit.SECONDS);
            assertEquals(8, accepted.get(), "20 offers into 8 free slots, round " + round);
            int drained = 0;
            while (ring.poll() != null) {
                drained++;
            }
            assertEquals(8, drained);
        }
        stop.set(true);
        start.await(20, TimeUnit.SECONDS);
        for (Thread t : threads) {
            t.join(20_000);
        }
    }

    @Test
    void manyProducersOneConsumerKeepEachProducersOrderAndLoseNothing() throws Exception {
        int producers = 4;
        int perProducer = 250_000;
        MpscRing<Long> ring = new MpscRing<>(64);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            long producer = p;
            Thread t = new Thread(() -> {
                for (long seq = 0; seq < perProducer; seq++) {
                    Long element = producer << 32 | seq;
                    while (!ring.offer(element)) {
                        Thread.yield();
                    }
                }
            });
            t.setUncaughtExceptionHandler((th, e) -> failure.set(e));
            t.start();
            threads.add(t);
        }
        long[] expected = new long[producers];
        long received = 0;
        long deadline = System.nanoTime() + WAIT_NANOS * 3;
        while (received < (long) producers * perProducer) {
            Long e = ring.poll();
            if (e == null) {
                if (System.nanoTime() > deadline) {
                    fail("only " + received + " elements arrived");
                }
                Thread.yield();
                continue;
            }
            int producer = (int) (e >>> 32);
            long seq = e & 0xffff_ffffL;
            assertEquals(expected[producer], seq, "producer " + producer + ": out of order, lost or repeated");
            expected[producer]++;
            received++;
        }
        for (Thread t : threads) {
            t.join(20_000);
        }
        assertNull(failure.get());
        assertNull(ring.poll(), "nothing beyond what was offered");
        assertTrue(ring.isEmpty());
    }

    /** One round's outcome: which offers were accepted, what the poll got, what was left. */
    private record Outcome(boolean a, boolean b, boolean c, String polled, List<String> rest) {
    }

    @Test
    void everyOutcomeOfConcurrentOffersAndAPollMatchesSomeSequentialOrder() throws Exception {
        Set<Outcome> allowed = sequentialOutcomes();
        MpscRing<String> ring = new MpscRing<>(2);
        boolean[] ok = new boolean[3];
        String[] polled = new String[1];
        CyclicBarrier start = new CyclicBarrier(5);
        CyclicBarrier end = new CyclicBarrier(5);
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            int actor = k;
            Thread t = new Thread(() -> {
                try {
                    while (true) {
                        start.await();
                        if (stop.get()) {
                            return;
                        }
                        if (actor < 3) {
                            ok[actor] = ring.offer(String.valueOf((char) ('A' + actor)));
                        } else {
                            polled[0] = ring.poll();
                        }
                        end.await();
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            t.start();
            threads.add(t);
        }
        Set<Outcome> seen = new HashSet<>();
        for (int round = 0; round < 10_000; round++) {
            start.await(20, TimeUnit.SECONDS);
            end.await(20, TimeUnit.SECONDS);
            List<String> rest = new ArrayList<>();
            String s;
            while ((s = ring.poll()) != null) {
                rest.add(s);
            }
            Outcome o = new Outcome(ok[0], ok[1], ok[2], polled[0], rest);
            assertTrue(allowed.contains(o), "round " + round + ": " + o + " matches no sequential order");
            seen.add(o);
        }
        stop.set(true);
        start.await(20, TimeUnit.SECONDS);
        for (Thread t : threads) {
            t.join(20_000);
        }
        assertTrue(seen.size() > 1, "the races produced only one outcome: " + seen);
    }

    /** Every outcome of offer(A), offer(B), offer(C) and one poll, in every order, on a 2-slot queue. */
    private static Set<Outcome> sequentialOutcomes() {
        Set<Outcome> outcomes = new HashSet<>();
        permute(new int[] {0, 1, 2, 3}, 0, order -> {
            ArrayDeque<String> q = new ArrayDeque<>();
            boolean[] ok = new boolean[3];
            String polled = null;
            for (int op : order) {
                if (op < 3) {
                    ok[op] = q.size() < 2 && q.add(String.valueOf((char) ('A' + op)));
                } else {
                    polled = q.poll();
                }
            }
            outcomes.add(new Outcome(ok[0], ok[1], ok[2], polled, List.copyOf(q)));
        });
        return outcomes;
    }

    private static void permute(int[] a, int k, java.util.function.Consumer<int[]> each) {
        if (k == a.length) {
            each.accept(a);
            return;
        }
        for (int i = k; i < a.length; i++) {
            int t = a[k];
            a[k] = a[i];
            a[i] = t;
            permute(a, k + 1, each);
            a[i] = a[k];
            a[k] = t;
        }
    }

    @Test
    void aBoundedOfferWaitsForAFreeSlotInsteadOfFailing() throws Exception {
        MpscRing<Integer> ring = new MpscRing<>(2);
        ring.offer(1);
        ring.offer(2);
        AtomicReference<Boolean> result = new AtomicReference<>();
        Thread offerer = new Thread(() -> result.set(ring.offer(3, 60, TimeUnit.SECONDS)));
        offerer.start();
        Thread.sleep(100);
        assertTrue(offerer.isAlive(), "the offer returned while the ring was still full: " + result.get());
        assertEquals(1, ring.poll());
        offerer.join(30_000);
        assertEquals(true, result.get());
        assertEquals(2, ring.poll());
        assertEquals(3, ring.poll());
    }

    @Test
    void aBoundedOfferGivesUpOnlyAfterItsBound() {
        MpscRing<Integer> ring = new MpscRing<>(2);
        ring.offer(1);
        ring.offer(2);
        long start = System.nanoTime();
        assertFalse(ring.offer(3, 50, TimeUnit.MILLISECONDS));
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(50), "gave up before its bound");
        assertEquals(2, ring.size(), "a refused element is not queued");
        ring.poll();
        assertTrue(ring.offer(3, 0, TimeUnit.MILLISECONDS), "a free slot is taken without waiting");
    }

    @Test
    void theParkProtocolLosesNoWakeUp() throws Exception {
        int items = 20_000;
        MpscRing<Integer> ring = new MpscRing<>(16);
        AtomicInteger parked = new AtomicInteger();
        AtomicLong consumed = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        Thread consumer = new Thread(() -> {
            while (!stop.get()) {
                Integer e;
                while ((e = ring.poll()) != null) {
                    consumed.incrementAndGet();
                    assertTrue(e >= 0);
                }
                parked.set(1);
                VarHandle.fullFence();
                if (ring.isEmpty() && !stop.get()) {
                    LockSupport.park(this); // no timeout: a lost wake-up hangs here
                }
                parked.set(0);
            }
        });
        consumer.setDaemon(true);
        consumer.start();
        Random random = new Random(5);
        for (int i = 0; i < items; i++) {
            int gap = random.nextInt(4);
            if (gap == 1) {
                Thread.yield();
            } else if (gap == 2) {
                LockSupport.parkNanos(20_000);
            }
            assertTrue(ring.offer(i));
            VarHandle.fullFence();
            if (parked.get() == 1) {
                LockSupport.unpark(consumer);
            }
            long deadline = System.nanoTime() + WAIT_NANOS;
            while (consumed.get() <= i) {
                if (System.nanoTime() > deadline) {
                    fail("item " + i + " was not taken within 20 s: a lost wake-up");
                }
                Thread.onSpinWait();
            }
        }
        stop.set(true);
        LockSupport.unpark(consumer);
        consumer.join(20_000);
    }
}
