package io.blockxfer.tck.directory;

import io.blockxfer.directory.DirectoryEntry;
import io.blockxfer.directory.DirectoryEvent;
import io.blockxfer.directory.DirectoryListener;
import io.blockxfer.directory.DirectorySnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Records what a watch delivers: its snapshot, its events, its reconnect notices, on which
 * threads, and whether two calls ever overlapped; and waits for them.
 *
 * <p><b>Thread safety:</b> thread-safe (synchronized); the directory calls it, rules read it.
 */
final class WatchLog implements DirectoryListener {

    private final Duration timeout;
    private final String callerThread;
    private final List<DirectoryEvent> events = new ArrayList<>();
    private final List<String> notices = new ArrayList<>();
    private final Set<String> threads = new HashSet<>();
    private @Nullable DirectorySnapshot snapshot;
    private int calls;
    private int inside;
    private boolean overlapped;
    private int snapshots;

    WatchLog(Duration timeout) {
        this.timeout = timeout;
        this.callerThread = Thread.currentThread().getName();
    }

    private synchronized void enter() {
        calls++;
        inside++;
        if (inside > 1) {
            overlapped = true;
        }
        threads.add(Thread.currentThread().getName());
    }

    private synchronized void leave() {
        inside--;
        notifyAll();
    }

    @Override
    public void snapshot(DirectorySnapshot s) {
        enter();
        try {
            synchronized (this) {
                snapshots++;
                if (snapshot == null) {
                    snapshot = s;
                }
            }
        } finally {
            leave();
        }
    }

    @Override
    public void changed(DirectoryEvent event) {
        enter();
        try {
            synchronized (this) {
                events.add(event);
            }
        } finally {
            leave();
        }
    }

    @Override
    public void disconnected(String reason) {
        enter();
        try {
            synchronized (this) {
                notices.add("disconnected");
            }
        } finally {
            leave();
        }
    }

    @Override
    public void reconnected(long revision, boolean resync) {
        enter();
        try {
            synchronized (this) {
                notices.add(resync ? "resynced" : "resumed");
                events.add(marker(revision, resync));
            }
        } finally {
            leave();
        }
    }

    /** Reconnects are kept in the event list too, as a delete of an impossible key, to see what came after. */
    private static DirectoryEvent marker(long revision, boolean resync) {
        return DirectoryEvent.delete(RECONNECT_KEY, Math.max(1, revision), resync);
    }

    /** The key of the marker {@link #events()} holds for each reconnect. */
    static final String RECONNECT_KEY = "\u0000reconnected";

    /** The snapshot; the caller has waited for it ({@link #awaitSnapshot}). */
    synchronized DirectorySnapshot snapshot() {
        DirectorySnapshot s = snapshot;
        if (s == null) {
            throw new AssertionError("no snapshot was delivered yet");
        }
        return s;
    }

    /** The events and reconnect markers so far. */
    synchronized List<DirectoryEvent> events() {
        return List.copyOf(events);
    }

    /** The events so far, without reconnect markers. */
    synchronized List<DirectoryEvent> changes() {
        return events.stream().filter(e -> !e.key().equals(RECONNECT_KEY)).toList();
    }

    synchronized List<String> notices() {
        return List.copyOf(notices);
    }

    synchronized Set<String> threads() {
        return Set.copyOf(threads);
    }

    synchronized int calls() {
        return calls;
    }

    synchronized int snapshots() {
        return snapshots;
    }

    synchronized boolean overlapped() {
        return overlapped;
    }

    String callerThread() {
        return callerThread;
    }

    /** The content the snapshot and the events make, key by key (values as strings of their bytes' hash). */
    synchronized Map<String, String> content() {
        Map<String, String> content = new TreeMap<>();
        if (snapshot != null) {
            for (DirectoryEntry e : snapshot.entries()) {
                content.put(e.key(), digest(e.value()));
            }
        }
        for (DirectoryEvent e : events) {
            if (e.key().equals(RECONNECT_KEY)) {
                continue;
            }
            if (e.type() == DirectoryEvent.Type.PUT) {
                content.put(e.key(), digest(e.value()));
            } else {
                content.remove(e.key());
            }
        }
        return content;
    }

    /** What the snapshot and the events make of {@code key} now: its last put, or null when absent. */
    synchronized @org.jspecify.annotations.Nullable DirectoryEntry current(String key) {
        DirectoryEntry now = null;
        if (snapshot != null) {
            now = snapshot.entries().stream().filter(e -> e.key().equals(key)).findFirst().orElse(null);
        }
        for (DirectoryEvent e : events) {
            if (e.key().equals(key)) {
                now = e.type() == DirectoryEvent.Type.PUT ? new DirectoryEntry(key, e.value(), e.revision(), e.lease())
                        : null;
            }
        }
        return now;
    }

    static String digest(byte[] value) {
        return value.length + ":" + java.util.Arrays.hashCode(value);
    }

    /** Waits for the snapshot. */
    DirectorySnapshot awaitSnapshot(String msg) throws InterruptedException {
        await(l -> l.snapshot != null, msg + ": no snapshot");
        return snapshot();
    }

    /** Waits for an event that {@code matches}, and returns it. */
    DirectoryEvent awaitEvent(Predicate<DirectoryEvent> matches, String msg) throws InterruptedException {
        await(l -> l.events.stream().anyMatch(matches), msg);
        return changes().stream().filter(matches).findFirst().orElseThrow();
    }

    /** Waits for a put of {@code key}. */
    DirectoryEvent awaitPut(String key, String msg) throws InterruptedException {
        return awaitEvent(e -> e.key().equals(key) && e.type() == DirectoryEvent.Type.PUT, msg);
    }

    /** Waits for a delete of {@code key}. */
    DirectoryEvent awaitDelete(String key, String msg) throws InterruptedException {
        return awaitEvent(e -> e.key().equals(key) && e.type() == DirectoryEvent.Type.DELETE, msg);
    }

    /** Waits until {@code condition} holds of this log. */
    synchronized void await(Predicate<WatchLog> condition, String msg) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (!condition.test(this)) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError(msg + " within " + timeout.toMillis() + " ms; the watch delivered "
                        + (snapshot == null ? "no snapshot" : snapshot) + ", " + events + ", " + notices);
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }
}
