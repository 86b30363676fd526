package io.blockxfer.transport.internal;

import io.blockxfer.transport.TransferFuture;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The transfers of one peer that are in flight, in submission order, as parallel primitive arrays
 * that grow and never shrink, so the steady state allocates nothing. An asynchronous transfer
 * carries its {@link TransferFuture}; a polled one carries null.
 *
 * <p><b>Thread safety:</b> not thread-safe; guarded by the owning peer's lock.
 */
public final class InflightTable {

    private long[] ids = new long[16];
    private Object[] handles = new Object[16];
    private Registration[] registrations = new Registration[16];
    private long[] startNanos = new long[16];
    private io.blockxfer.transport.TransferOp[] ops = new io.blockxfer.transport.TransferOp[16];
    private int[] blocks = new int[16];
    private @Nullable TransferFuture[] futures = new TransferFuture[16];
    private int size;

    public int size() {
        return size;
    }

    public void add(long id, Object handle, Registration registration, long startNanos,
            io.blockxfer.transport.TransferOp op, int blocks, @Nullable TransferFuture future) {
        if (size == ids.length) {
            int n = size * 2;
            ids = Arrays.copyOf(ids, n);
            handles = Arrays.copyOf(handles, n);
            registrations = Arrays.copyOf(registrations, n);
            this.startNanos = Arrays.copyOf(this.startNanos, n);
            this.ops = Arrays.copyOf(this.ops, n);
            this.blocks = Arrays.copyOf(this.blocks, n);
            futures = Arrays.copyOf(futures, n);
        }
        ids[size] = id;
        handles[size] = handle;
        registrations[size] = registration;
        this.startNanos[size] = startNanos;
        this.ops[size] = op;
        this.blocks[size] = blocks;
        futures[size] = future;
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

    public io.blockxfer.transport.TransferOp op(int i) {
        return ops[i];
    }

    public int blocks(int i) {
        return blocks[i];
    }

    /** The future of an asynchronous transfer; null for a polled one. */
    public @Nullable TransferFuture future(int i) {
        return futures[i];
    }

    /** Detaches entry {@code i}'s future (the transport closed and failed it), leaving the handle. */
    public void clearFuture(int i) {
        futures[i] = null;
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
                ops[w] = ops[r];
                blocks[w] = blocks[r];
                futures[w] = futures[r];
                w++;
            }
        }
        Arrays.fill(handles, w, size, null);
        Arrays.fill(registrations, w, size, null);
        Arrays.fill(futures, w, size, null);
        size = w;
    }
}
