package io.blockxfer.transport.internal.queue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * A bounded, lock-free queue of many producers and one consumer over an array of slots, each with
 * a sequence number (Vyukov's design), for backends that hand submits to an engine thread of their
 * own: offering and polling allocate nothing and never park, so a submitting thread never meets
 * the engine thread on a lock (a lock-based queue costs a futex wake-up and an allocation whenever
 * the two collide). Not API: exported only to the backends that use it. (JCTools' Unsafe-free
 * {@code MpscAtomicArrayQueue} would serve as well; this one stays so that the backends take no
 * further dependency, with {@code MpscRingTest} as its own stress test.)
 *
 * <p>Ordering: each producer's elements come out in the order it offered them, none lost, none
 * twice. An element is visible to {@link #poll()} once its {@link #offer} returned; an offer still
 * in progress may hold back the elements of offers that claimed later slots (so {@code poll} may
 * return null while another producer's offer has already returned), but never for longer than
 * that offer takes to finish. {@link #isEmpty()} counts such in-progress offers as queued, which
 * makes it the right check before a consumer parks (see {@link #isEmpty()}).
 *
 * <p><b>Thread safety:</b> {@link #offer} and {@link #isEmpty} from any thread; {@link #poll} from
 * one consumer at a time (callers that move the consumer role between threads must hand it over
 * with a happens-before edge, such as a lock).
 *
 * @param <E> the element type
 */
public final class MpscRing<E> {

    private static final VarHandle HEAD;
    private static final int SPINS_WHEN_FULL = 128;
    private static final int YIELDS_WHEN_FULL = 16;
    private static final long MAX_PARK_NANOS = 1_000_000;

    static {
        try {
            HEAD = MethodHandles.lookup().findVarHandle(MpscRing.class, "head", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Object[] buffer;
    private final AtomicLongArray sequence;
    private final int mask;
    private final AtomicLong tail = new AtomicLong();
    /** Written only by the consumer (release); read plainly by it, with acquire by others. */
    @SuppressWarnings("unused") // accessed through HEAD
    private long head;

    /** A ring of {@code capacity} slots, a power of two of at least 2. */
    public MpscRing(int capacity) {
        if (capacity < 2 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two of at least 2: " + capacity);
        }
        buffer = new Object[capacity];
        sequence = new AtomicLongArray(capacity);
        mask = capacity - 1;
        for (int i = 0; i < capacity; i++) {
            sequence.set(i, i);
        }
    }

    /** The number of slots. */
    public int capacity() {
        return mask + 1;
    }

    /** Adds {@code e} if a slot is free; false at once when the ring is full. */
    public boolean offer(E e) {
        Objects.requireNonNull(e, "element");
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

    /**
     * Adds {@code e}, waiting while the ring is full: spins briefly, then yields, then parks for
     * growing intervals (at most 1 ms each), until a slot frees or {@code timeout} has passed. This
     * is back-pressure: a full ring slows the offering thread instead of failing its element. An
     * interrupt does not end the wait early (the interrupt status is kept).
     *
     * @return true once added; false only if the ring stayed full for the whole {@code timeout}
     */
    // the yield is the middle step of a spin/yield/park back-off, as Agrona's BackoffIdleStrategy has:
    // it only gives a full ring's consumer a chance to run, and nothing depends on the scheduler honouring it
    @SuppressWarnings("ThreadPriorityCheck")
    public boolean offer(E e, long timeout, TimeUnit unit) {
        if (offer(e)) {
            return true;
        }
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        long parkNanos = 1_000;
        for (int attempt = 0; ; attempt++) {
            if (attempt < SPINS_WHEN_FULL) {
                Thread.onSpinWait();
            } else if (attempt < SPINS_WHEN_FULL + YIELDS_WHEN_FULL) {
                Thread.yield();
            } else {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return offer(e);
                }
                LockSupport.parkNanos(this, Math.min(parkNanos, left));
                parkNanos = Math.min(parkNanos * 2, MAX_PARK_NANOS);
            }
            if (offer(e)) {
                return true;
            }
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
        }
    }

    /** The oldest element, or null when none is ready. Consumer only. */
    @SuppressWarnings("unchecked") // the buffer holds only what offer(E) put there
    public @Nullable E poll() {
        long h = (long) HEAD.get(this);
        int i = (int) (h & mask);
        if (sequence.getAcquire(i) != h + 1) {
            return null;
        }
        E e = (E) buffer[i];
        buffer[i] = null;
        sequence.setRelease(i, h + mask + 1);
        HEAD.setRelease(this, h + 1);
        return e;
    }

    /**
     * Whether nothing is queued, counting offers still in progress as queued. From any thread.
     *
     * <p>The park protocol this supports: the consumer announces that it parks, issues a full
     * fence ({@link VarHandle#fullFence()}), and parks only if this returns true; a producer
     * offers, issues a full fence, and wakes the consumer if it sees the announcement. Either the
     * consumer sees the element or the producer sees the announcement, so no wake-up is lost.
     */
    public boolean isEmpty() {
        return tail.get() == (long) HEAD.getAcquire(this);
    }

    /** How many elements are queued or being queued: exact when no thread is using the ring. */
    public int size() {
        long h = (long) HEAD.getAcquire(this);
        return (int) Math.max(0, Math.min(tail.get() - h, mask + 1L));
    }
}
