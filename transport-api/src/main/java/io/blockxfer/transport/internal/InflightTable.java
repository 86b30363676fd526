package io.blockxfer.transport.internal;

import java.util.Arrays;

/**
 * The transfers of one peer that are in flight, in submission order, as parallel primitive arrays
 * that grow and never shrink, so the steady state allocates nothing.
 *
 * <p><b>Thread safety:</b> not thread-safe; guarded by the owning peer's lock.
 */
public final class InflightTable {

    private long[] ids = new long[16];
    private Object[] handles = new Object[16];
    private Registration[] registrations = new Registration[16];
    private long[] startNanos = new long[16];
    private int size;

    public int size() {
        return size;
    }

    public void add(long id, Object handle, Registration registration, long startNanos) {
        if (size == ids.length) {
            int n = size * 2;
            ids = Arrays.copyOf(ids, n);
            handles = Arrays.copyOf(handles, n);
            registrations = Arrays.copyOf(registrations, n);
            this.startNanos = Arrays.copyOf(this.startNanos, n);
        }
        ids[size] = id;
        handles[size] = handle;
        registrations[size] = registration;
        this.startNanos[size] = startNanos;
        size++;
    }

    public long id(int i) {
        return ids[i];
    }

    public Object handle(int i) {
        return handles[i];
    }

    public Registration registration(int i) {
        return registrations[i];
    }

    public long startNanos(int i) {
        return startNanos[i];
    }

    /** Removes every entry whose {@code keep} flag is false, keeping the order of the rest. */
    public void compact(boolean[] keep) {
        int w = 0;
        for (int r = 0; r < size; r++) {
            if (keep[r]) {
                ids[w] = ids[r];
                handles[w] = handles[r];
                registrations[w] = registrations[r];
                startNanos[w] = startNanos[r];
                w++;
            }
        }
        Arrays.fill(handles, w, size, null);
        Arrays.fill(registrations, w, size, null);
        size = w;
    }

    /** Removes the entry at {@code i}, keeping the order of the rest. */
    public void removeAt(int i) {
        int tail = size - i - 1;
        System.arraycopy(ids, i + 1, ids, i, tail);
        System.arraycopy(handles, i + 1, handles, i, tail);
        System.arraycopy(registrations, i + 1, registrations, i, tail);
        System.arraycopy(startNanos, i + 1, startNanos, i, tail);
        size--;
        handles[size] = null;
        registrations[size] = null;
    }
}
