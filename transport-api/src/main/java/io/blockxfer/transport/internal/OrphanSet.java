package io.blockxfer.transport.internal;

import java.util.Arrays;

/**
 * Native transfers nobody will be told about any more (cancelled, abandoned at a deadline, or left
 * by a removed peer) that the native layer has not finished. They are kept, never freed, until
 * the engine reports them terminal.
 *
 * <p><b>Thread safety:</b> not thread-safe; guarded by the owning transport.
 */
public final class OrphanSet {

    private Object[] handles = new Object[16];
    private Registration[] registrations = new Registration[16];
    private int size;

    public int size() {
        return size;
    }

    public void add(Object handle, Registration registration) {
        if (size == handles.length) {
            handles = Arrays.copyOf(handles, size * 2);
            registrations = Arrays.copyOf(registrations, size * 2);
        }
        handles[size] = handle;
        registrations[size] = registration;
        size++;
    }

    public Object handle(int i) {
        return handles[i];
    }

    public Registration registration(int i) {
        return registrations[i];
    }

    /** Removes the entry at {@code i} by moving the last one into its place. */
    public void removeAt(int i) {
        size--;
        handles[i] = handles[size];
        registrations[i] = registrations[size];
        handles[size] = null;
        registrations[size] = null;
    }
}
