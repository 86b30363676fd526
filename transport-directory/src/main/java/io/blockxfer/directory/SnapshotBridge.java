package io.blockxfer.directory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The default of {@link Directory#watch(DirectoryScope, DirectorySnapshot, DirectoryListener)}: a
 * watch of a scope that starts from a snapshot read before, built on a plain watch of the scope.
 * The plain watch is opened on a virtual thread (tried again every second while the directory
 * cannot be reached); when its own snapshot arrives, the listener gets the given snapshot, then the
 * differences between the two as ordinary events (puts of the entries created or changed since, in
 * revision order, then deletes of the entries gone, at the newer snapshot's revision), then the
 * plain watch's events.
 *
 * <p><b>Thread safety:</b> thread-safe; the listener is called on the plain watch's thread.
 */
final class SnapshotBridge implements DirectoryWatch, DirectoryListener {

    private static final System.Logger LOG = System.getLogger(SnapshotBridge.class.getName());
    private static final long RETRY_MILLIS = 1_000;

    private final DirectorySnapshot from;
    private final DirectoryListener listener;
    private volatile long delivered;
    // guarded by this
    private @Nullable DirectoryWatch watch;
    private boolean closed;
    // the watch's thread only
    private boolean started;

    SnapshotBridge(DirectorySnapshot from, DirectoryListener listener) {
        this.from = from;
        this.listener = listener;
        this.delivered = from.revision();
    }

    /** Opens the plain watch with {@code open} on a virtual thread, until it opens or this watch closes. */
    void open(Supplier<DirectoryWatch> open) {
        Thread.ofVirtual().name("blockxfer-directory-watch").start(() -> {
            while (true) {
                synchronized (this) {
                    if (closed) {
                        return;
                    }
                }
                try {
                    DirectoryWatch w = open.get();
                    synchronized (this) {
                        if (!closed) {
                            watch = w;
                            return;
                        }
                    }
                    w.close();
                    return;
                } catch (DirectoryUnavailableException e) {
                    LOG.log(System.Logger.Level.DEBUG, () -> "a watch from revision " + from.revision()
                            + " could not open yet: " + e.getMessage());
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "a watch from revision " + from.revision() + " cannot open: "
                            + e);
                    return;
                }
                try {
                    Thread.sleep(RETRY_MILLIS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    @Override
    public void snapshot(DirectorySnapshot now) {
        if (started) {
            return;
        }
        started = true;
        listener.snapshot(from);
        if (now.revision() <= from.revision()) {
            return; // not newer: the events after it carry everything
        }
        Map<String, DirectoryEntry> before = new HashMap<>();
        for (DirectoryEntry e : from.entries()) {
            before.put(e.key(), e);
        }
        List<DirectoryEntry> puts = new ArrayList<>();
        for (DirectoryEntry e : now.entries()) {
            DirectoryEntry was = before.remove(e.key());
            if ((was == null || was.revision() != e.revision()) && e.revision() > from.revision()) {
                puts.add(e);
            }
        }
        puts.sort(Comparator.comparingLong(DirectoryEntry::revision).thenComparing(DirectoryEntry::key));
        for (DirectoryEntry e : puts) {
            deliver(DirectoryEvent.put(e.key(), e.value(), e.revision(), e.lease(), false));
        }
        before.keySet().stream().sorted().forEach(key -> deliver(DirectoryEvent.delete(key, now.revision(), false)));
        delivered = Math.max(delivered, now.revision());
    }

    @Override
    public void changed(DirectoryEvent event) {
        if (started && event.revision() > from.revision()) {
            deliver(event);
        }
    }

    private void deliver(DirectoryEvent event) {
        delivered = Math.max(delivered, event.revision());
        listener.changed(event);
    }

    @Override
    public void disconnected(String reason) {
        if (started) {
            listener.disconnected(reason);
        }
    }

    @Override
    public void reconnected(long revision, boolean resync) {
        if (started) {
            listener.reconnected(revision, resync);
        }
    }

    @Override
    public long revision() {
        return delivered;
    }

    @Override
    public void close() {
        DirectoryWatch w;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            w = watch;
            watch = null;
        }
        if (w != null) {
            w.close();
        }
    }

    @Override
    public String toString() {
        return "watch from revision " + from.revision() + " for " + listener;
    }
}
