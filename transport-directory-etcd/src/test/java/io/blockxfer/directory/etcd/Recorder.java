package io.blockxfer.directory.etcd;

import io.blockxfer.directory.DirectoryEntry;
import io.blockxfer.directory.DirectoryEvent;
import io.blockxfer.directory.DirectoryListener;
import io.blockxfer.directory.DirectorySnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A {@link DirectoryListener} for tests: records every callback with the time it came, applies
 * the snapshot and the events to a view of the directory, and records every breach of the
 * listener contract it sees (an event before the snapshot, a revision going back, a (key,
 * revision) delivered twice, a callback off the directory's thread) for {@link #violations()}.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
final class Recorder implements DirectoryListener {

    /** One callback: what, and when ({@link System#nanoTime()}). */
    record Callback(String what, long at, @Nullable DirectoryEvent event) {
    }

    private final List<Callback> callbacks = new ArrayList<>();
    private final Map<String, DirectoryEntry> view = new TreeMap<>();
    private final Set<String> delivered = new HashSet<>();
    private final List<String> violations = new ArrayList<>();
    private @Nullable DirectorySnapshot snapshot;
    private long lastRevision;
    private boolean connected = true;

    @Override
    public synchronized void snapshot(DirectorySnapshot s) {
        checkThread("snapshot");
        if (snapshot != null) {
            violations.add("a second snapshot: " + s);
        }
        snapshot = s;
        for (DirectoryEntry e : s.entries()) {
            view.put(e.key(), e);
        }
        lastRevision = s.revision();
        callbacks.add(new Callback("snapshot " + s.revision() + " " + s.entries().size(), System.nanoTime(), null));
        notifyAll();
    }

    @Override
    public synchronized void changed(DirectoryEvent e) {
        checkThread("changed");
        if (snapshot == null) {
            violations.add("an event before the snapshot: " + e);
        }
        if (!connected) {
            violations.add("an event while disconnected: " + e);
        }
        if (e.revision() < lastRevision || (snapshot != null && e.revision() <= snapshot.revision() && !e.isResync())) {
            violations.add("revision went back: " + e + " after revision " + lastRevision);
        }
        if (!delivered.add(e.key() + "@" + e.revision() + "/" + e.type())) {
            violations.add("delivered twice: " + e);
        }
        DirectoryEntry before = view.get(e.key());
        if (e.type() == DirectoryEvent.Type.PUT) {
            if (before != null && before.revision() >= e.revision()) {
                violations.add("a put older than the entry it replaces: " + e + " over " + before);
            }
            view.put(e.key(), new DirectoryEntry(e.key(), e.value(), e.revision()));
        } else {
            if (before == null) {
                violations.add("a delete of a key not in the view: " + e);
            }
            view.remove(e.key());
        }
        lastRevision = Math.max(lastRevision, e.revision());
        callbacks.add(new Callback(e.toString(), System.nanoTime(), e));
        notifyAll();
    }

    @Override
    public synchronized void disconnected(String reason) {
        checkThread("disconnected");
        if (!connected) {
            violations.add("disconnected twice without a reconnect: " + reason);
        }
        connected = false;
        callbacks.add(new Callback("disconnected " + reason, System.nanoTime(), null));
        notifyAll();
    }

    @Override
    public synchronized void reconnected(long revision, boolean resync) {
        checkThread("reconnected");
        connected = true;
        callbacks.add(new Callback("reconnected " + revision + (resync ? " resync" : ""), System.nanoTime(), null));
        notifyAll();
    }

    private void checkThread(String callback) {
        String thread = Thread.currentThread().getName();
        if (!thread.startsWith("blockxfer-directory-")) {
            violations.add(callback + " on thread " + thread);
        }
    }

    /** The contract breaches seen so far; empty when none. */
    synchronized List<String> violations() {
        return List.copyOf(violations);
    }

    /** Every callback so far. */
    synchronized List<Callback> callbacks() {
        return List.copyOf(callbacks);
    }

    /** The events so far. */
    synchronized List<DirectoryEvent> events() {
        return callbacks.stream().map(Callback::event).filter(e -> e != null).toList();
    }

    /** The callbacks so far whose text starts with {@code start}. */
    synchronized List<Callback> callbacks(String start) {
        return callbacks.stream().filter(c -> c.what().startsWith(start)).toList();
    }

    /** The view: the snapshot with every event applied, by key. */
    synchronized Map<String, DirectoryEntry> view() {
        return new HashMap<>(view);
    }

    /** The snapshot; null before it came. */
    synchronized @Nullable DirectorySnapshot snapshot() {
        return snapshot;
    }

    /** Waits until the snapshot came. */
    DirectorySnapshot awaitSnapshot(Duration timeout) {
        await(r -> r.snapshot != null, timeout, "the snapshot");
        DirectorySnapshot s = snapshot();
        if (s == null) {
            throw new AssertionError("no snapshot");
        }
        return s;
    }

    /** Waits until the view satisfies {@code condition}, or fails with {@code what} and the callbacks. */
    void awaitView(Predicate<Map<String, DirectoryEntry>> condition, Duration timeout, String what) {
        await(r -> condition.test(r.view), timeout, what);
    }

    /** Waits until some callback's text starts with {@code start}; returns the first such one. */
    Callback awaitCallback(String start, Duration timeout) {
        await(r -> r.callbacks.stream().anyMatch(c -> c.what().startsWith(start)), timeout, "a callback '" + start + "'");
        return callbacks(start).getFirst();
    }

    /** Waits until {@code condition} holds for this recorder (evaluated under its lock). */
    synchronized void await(Predicate<Recorder> condition, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.test(this)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("no " + what + " within " + timeout.toMillis() + " ms; callbacks: "
                        + describe());
            }
            try {
                wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
    }

    /** The callbacks, one per line, for messages (the last 60). */
    synchronized String describe() {
        List<Callback> tail = callbacks.subList(Math.max(0, callbacks.size() - 60), callbacks.size());
        StringBuilder s = new StringBuilder();
        for (Callback c : tail) {
            s.append("\n  ").append(c.what());
        }
        return s.toString();
    }
}
