package io.blockxfer.transport.internal;

import java.util.Arrays;

/**
 * A growable list of transfer ids over a {@code long[]}; allocates only to grow.
 *
 * <p><b>Thread safety:</b> not thread-safe.
 */
public final class IdList {

    private long[] ids = new long[16];
    private int size;

    public int size() {
        return size;
    }

    public long get(int i) {
        return ids[i];
    }

    public long[] array() {
        return ids;
    }

    public void add(long id) {
        if (size == ids.length) {
            ids = Arrays.copyOf(ids, size * 2);
        }
        ids[size++] = id;
    }

    public void clear() {
        size = 0;
    }

    /** Removes every id that {@code sortedIds} contains; returns how many were removed. */
    public int removeAll(long[] sortedIds) {
        int w = 0;
        for (int r = 0; r < size; r++) {
            if (Arrays.binarySearch(sortedIds, ids[r]) < 0) {
                ids[w++] = ids[r];
            }
        }
        int removed = size - w;
        size = w;
        return removed;
    }
}
