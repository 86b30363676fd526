package io.blockxfer.transport.internal.notify;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * Refuses signed notification frames that were seen before or are too old, so that a process
 * without the deployment's key cannot replay a captured "your blocks have landed". Each sender
 * stream (one registration of the receiver at one sender) keeps a window of the last
 * {@value #WINDOW} sequence numbers; a frame below the window, sent more than {@link #HORIZON_MILLIS}
 * from now by the receiver's clock, or repeating a number in the window is refused. A stream's
 * window is forgotten only after it was idle for the horizon, when every frame it could replay is
 * stale anyway; while {@value #MAX_STREAMS} streams are fresh, a frame of a new stream is refused.
 *
 * <p>Cost: a hash lookup and a few bit operations under one lock per frame, about 600 bytes per
 * live stream.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class ReplayGuard {

    /** Sequence numbers a stream may arrive out of order by. */
    public static final int WINDOW = 4096;
    /** How far a frame's sent-at may lie from the receiver's clock: 5 minutes. */
    public static final long HORIZON_MILLIS = 5 * 60 * 1000L;
    /** Live streams kept at most. */
    public static final int MAX_STREAMS = 16_384;

    /** What {@link #check} decided. */
    public enum Verdict {
        ACCEPTED, REPLAYED, STALE, TOO_MANY_STREAMS
    }

    private record StreamKey(long sender, long stream) {
    }

    private static final class Window {
        long highest;
        long lastMillis;
        final long[] bits = new long[WINDOW / 64];

        boolean isSet(long seq) {
            int i = (int) (seq & (WINDOW - 1));
            return (bits[i >>> 6] & (1L << (i & 63))) != 0;
        }

        void set(long seq) {
            int i = (int) (seq & (WINDOW - 1));
            bits[i >>> 6] |= 1L << (i & 63);
        }

        void clear(long seq) {
            int i = (int) (seq & (WINDOW - 1));
            bits[i >>> 6] &= ~(1L << (i & 63));
        }
    }

    private final LongSupplier clockMillis;
    private final ReentrantLock lock = new ReentrantLock();
    /** In access order: the eldest is the stream idle longest. */
    private final LinkedHashMap<StreamKey, Window> windows = new LinkedHashMap<>(64, 0.75f, true);

    /** @param clockMillis the receiver's wall clock in epoch milliseconds */
    public ReplayGuard(LongSupplier clockMillis) {
        this.clockMillis = clockMillis;
    }

    /** Checks one frame, and records it when accepted. */
    public Verdict check(long sender, long stream, long sequence, long sentAtMillis) {
        long now = clockMillis.getAsLong();
        if (sequence <= 0 || Math.abs(now - sentAtMillis) > HORIZON_MILLIS) {
            return Verdict.STALE;
        }
        StreamKey key = new StreamKey(sender, stream);
        lock.lock();
        try {
            Window w = windows.get(key);
            if (w == null) {
                if (windows.size() >= MAX_STREAMS && !evictIdle(now)) {
                    return Verdict.TOO_MANY_STREAMS;
                }
                w = new Window();
                windows.put(key, w);
            }
            w.lastMillis = now;
            if (sequence > w.highest) {
                long from = Math.max(w.highest + 1, sequence - WINDOW + 1);
                for (long s = from; s < sequence; s++) {
                    w.clear(s);
                }
                w.set(sequence);
                w.highest = sequence;
                return Verdict.ACCEPTED;
            }
            if (sequence <= w.highest - WINDOW) {
                return Verdict.STALE;
            }
            if (w.isSet(sequence)) {
                return Verdict.REPLAYED;
            }
            w.set(sequence);
            return Verdict.ACCEPTED;
        } finally {
            lock.unlock();
        }
    }

    /** Forgets the streams idle for the horizon; true if one went. Holds the lock. */
    private boolean evictIdle(long now) {
        boolean any = false;
        for (Iterator<Map.Entry<StreamKey, Window>> it = windows.entrySet().iterator(); it.hasNext(); ) {
            Window w = it.next().getValue();
            if (now - w.lastMillis <= HORIZON_MILLIS) {
                break;
            }
            it.remove();
            any = true;
        }
        return any;
    }

    /** Live streams (for tests). */
    public int streams() {
        lock.lock();
        try {
            return windows.size();
        } finally {
            lock.unlock();
        }
    }
}
