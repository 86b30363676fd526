package io.blockxfer.transport.spi;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A bounded, lock-free queue of many producers and one consumer over an array of slots, each with
 * a sequence number (Vyukov's design), for backends that hand submits to an engine thread of their
 * own: offering and polling allocate nothing and never park, so a submitting thread never meets
 * the engine thread on a lock (a lock-based queue costs a futex wake-up and an allocation whenever
 * the two collide).
 *
 * <p><b>Thread safety:</b> {@link #offer} from any thread; {@link #poll} and {@link #isEmpty} from
 * one consumer at a time (the engine thread; after it stops, callers that serialise among
 * themselves).
 *
 * @param <E> the element type
 */
public final class MpscRing<E> {

    private final Object[] buffer;
    private final AtomicLongArray sequence;
    private final int mask;
    private final AtomicLong tail = new AtomicLong();
    private long head;

    /** A ring of {@code capacity} slots, a power of two. */
    public MpscRing(int capacity) {
        if (Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two: " + capacity);
        }
        buffer = new Object[capacity];
        sequence = new AtomicLongArray(capacity);
        mask = capacity - 1;
        for (int i = 0; i < capacity; i++) {
            sequence.set(i, i);
        }
    }

    /** Adds {@code e}; false when the ring is full. */
    public boolean offer(E e) {
        long t;
        while (true) {
            t = tail.get();
            long dif = sequence.getAcquire((int) (t & mask)) - t;
            if (dif == 0) {
                if (tail.compareAndSet(t, t + 1)) {
                    break;
                }
            } else if (dif < 0) {
                return false;
            } else {
                Thread.onSpinWait();
            }
        }
        int i = (int) (t & mask);
        buffer[i] = e;
        sequence.setRelease(i, t + 1);
        return true;
    }

    /** The oldest element, or null when the ring is empty. */
    @SuppressWarnings("unchecked")
    public E poll() {
        long h = head;
        int i = (int) (h & mask);
        if (sequence.getAcquire(i) != h + 1) {
            return null;
        }
        E e = (E) buffer[i];
        buffer[i] = null;
        sequence.setRelease(i, h + mask + 1);
        head = h + 1;
        return e;
    }

    /** Whether nothing is waiting to be polled. */
    public boolean isEmpty() {
        long h = head;
        return sequence.getAcquire((int) (h & mask)) != h + 1;
    }
}
