package io.blockxfer.directory;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The part of the {@link Directory} contract that is the same for every implementation, for
 * implementations to use: the callback thread, and the {@link Relay} that turns what a directory
 * reports into what a {@link DirectoryListener} must see. An implementation maps its client
 * library onto a relay's inputs, in the order the directory reports them, from any thread:
 * {@link Relay#listed} for a listing, {@link Relay#put}/{@link Relay#deleted} for watch events,
 * {@link Relay#disconnected} when the watch breaks, {@link Relay#resumed} when it is back, and on
 * a reconnect it watches again from {@link Relay#resumeRevision()}, or lists again when the
 * directory answers that the revision was compacted. The relay then delivers the snapshot,
 * drops events already delivered (a resumed watch may replay some), turns a second listing into
 * the resync's differences, and calls the listener on this dispatcher's thread, one callback at a
 * time, logging a callback that throws and going on.
 *
 * <p><b>Thread safety:</b> thread-safe. A relay's inputs may come from any thread, but the order
 * of its inputs is the order of delivery, so one watch's inputs must come in the directory's
 * order.
 */
public final class DirectoryDispatcher implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(DirectoryDispatcher.class.getName());
    private static final long CLOSE_WAIT_SECONDS = 5;
    /** How long an idle dispatcher keeps its thread: a directory that has nothing to say holds none. */
    private static final Duration IDLE = Duration.ofSeconds(10);

    private final String name;
    private final ThreadPoolExecutor executor;
    private volatile @Nullable Thread thread;

    /**
     * A dispatcher whose thread is a virtual thread named {@code blockxfer-directory-<name>},
     * started on the first callback and ended after ten idle seconds (the next callback starts
     * another: one at a time, in order). Virtual: starting one costs no operating-system thread,
     * so a callback handed over from a client library's event loop (gRPC's, Vert.x's) never waits
     * there for a thread to start, and a process of many directories (many memberships sharing
     * a connection) holds no thread per directory.
     */
    public DirectoryDispatcher(String name) {
        this(name, IDLE);
    }

    /** A dispatcher whose thread ends after {@code idle} without a callback. */
    DirectoryDispatcher(String name, Duration idle) {
        this.name = Objects.requireNonNull(name, "name");
        this.executor = new ThreadPoolExecutor(1, 1, idle.toNanos(), TimeUnit.NANOSECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = Thread.ofVirtual().name("blockxfer-directory-" + name).unstarted(r);
            thread = t;
            return t;
        });
        this.executor.allowCoreThreadTimeOut(true);
    }

    /** Whether this dispatcher's thread runs (a callback, or waiting for one until it has been idle too long). */
    boolean threadAlive() {
        Thread t = thread;
        return t != null && t.isAlive();
    }

    /** Whether the calling thread is this dispatcher's. */
    public boolean isDispatchThread() {
        return Thread.currentThread() == thread;
    }

    /** A relay for one watch that delivers to {@code listener}; {@code onClose} runs once, when it closes. */
    public Relay relay(DirectoryListener listener, Runnable onClose) {
        return new Relay(Objects.requireNonNull(listener, "listener"), Objects.requireNonNull(onClose, "onClose"));
    }

    /**
     * Tells {@code listener}, on this dispatcher's thread, that the lease of {@code publication} was
     * lost. The implementation calls it at most once per publication.
     */
    public void leaseLost(Publication publication, PublicationListener listener, String reason) {
        Objects.requireNonNull(publication, "publication");
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(reason, "reason");
        submit(() -> call(listener, "leaseLost", () -> listener.leaseLost(publication, reason)));
    }

    /**
     * Stops the thread: callbacks not yet started are dropped; one running is waited for (up to
     * five seconds), unless close runs on this thread. Idempotent.
     */
    @Override
    public void close() {
        executor.getQueue().clear();
        executor.shutdown();
        if (!isDispatchThread()) {
            try {
                if (!executor.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                    LOG.log(Level.WARNING, "directory " + name + ": a listener callback still runs "
                            + CLOSE_WAIT_SECONDS + " s after close");
                } else {
                    // the executor terminates while its last worker is still on its way out
                    Thread t = thread;
                    if (t != null) {
                        t.join(Duration.ofSeconds(CLOSE_WAIT_SECONDS));
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void submit(Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            // closed: nothing more is delivered
        }
    }

    private void call(Object listener, String callback, Runnable call) {
        try {
            call.run();
        } catch (VirtualMachineError e) {
            throw e;
        } catch (RuntimeException | Error e) {
            LOG.log(Level.WARNING, "directory " + name + ": listener " + listener + " threw from " + callback
                    + "; going on", e);
        }
    }

    /**
     * One watch's delivery: takes what the directory reports and gives its listener the contract's
     * snapshot, events and reconnects (see the class comment). It is the watch's
     * {@link DirectoryWatch} too: an implementation may return it as it is, or wrap it.
     *
     * <p><b>Thread safety:</b> thread-safe; inputs must come in the directory's order.
     */
    public final class Relay implements DirectoryWatch {

        private final DirectoryListener listener;
        private final Runnable onClose;
        private final AtomicLong received = new AtomicLong();
        private volatile boolean closed;
        private volatile long delivered;

        // dispatch thread only
        private final Map<String, Long> view = new HashMap<>();
        private final Set<String> keysAtRevision = new HashSet<>();
        private final List<Runnable> early = new ArrayList<>();
        private boolean revisionComplete;
        private boolean listedOnce;
        private boolean connected = true;

        private Relay(DirectoryListener listener, Runnable onClose) {
            this.listener = listener;
            this.onClose = onClose;
        }

        /**
         * A listing of every key under the prefix at {@code revision}: the first is the snapshot; a
         * later one is a resync after a reconnect that could not resume, whose differences become
         * events. The listing must be linearizable (not older than the events already handed in).
         */
        public void listed(List<DirectoryEntry> entries, long revision) {
            DirectorySnapshot snapshot = new DirectorySnapshot(revision, entries);
            received.accumulateAndGet(revision, Math::max);
            enqueue(() -> deliverListing(snapshot));
        }

        /** The directory reported a put of {@code key} at {@code revision}, attached to no lease. */
        public void put(String key, byte[] value, long revision) {
            put(key, value, revision, 0);
        }

        /**
         * The directory reported a put of {@code key} at {@code revision}, attached to
         * {@code lease} (0: none).
         */
        public void put(String key, byte[] value, long revision, long lease) {
            DirectoryEvent event = DirectoryEvent.put(key, value, revision, lease, false);
            received.accumulateAndGet(revision, Math::max);
            enqueue(() -> deliverEvent(event));
        }

        /** The directory reported a delete of {@code key} at {@code revision}. */
        public void deleted(String key, long revision) {
            DirectoryEvent event = DirectoryEvent.delete(key, revision, false);
            received.accumulateAndGet(revision, Math::max);
            enqueue(() -> deliverEvent(event));
        }

        /** The watch lost the directory; the listener hears of it once until {@link #resumed()}. */
        public void disconnected(String reason) {
            Objects.requireNonNull(reason, "reason");
            enqueue(() -> {
                if (listedOnce && connected) {
                    connected = false;
                    call(listener, "disconnected", () -> listener.disconnected(reason));
                }
            });
        }

        /**
         * The watch is back and resumes from {@link #resumeRevision()}; an event handed in after a
         * disconnect implies it.
         */
        public void resumed() {
            enqueue(this::ensureConnected);
        }

        /**
         * The revision a resumed watch starts from: one above the highest handed in so far. Events
         * at or below the highest that the directory replays are dropped here.
         */
        public long resumeRevision() {
            return received.get() + 1;
        }

        @Override
        public long revision() {
            return delivered;
        }

        /** Whether {@link #close()} was called. */
        public boolean isClosed() {
            return closed;
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            onClose.run();
        }

        private void enqueue(Runnable step) {
            if (!closed) {
                submit(() -> {
                    if (!closed) {
                        step.run();
                    }
                });
            }
        }

        private void ensureConnected() {
            if (listedOnce && !connected) {
                connected = true;
                long at = delivered;
                call(listener, "reconnected", () -> listener.reconnected(at, false));
            }
        }

        private void deliverListing(DirectorySnapshot snapshot) {
            long revision = snapshot.revision();
            if (!listedOnce) {
                listedOnce = true;
                for (DirectoryEntry e : snapshot.entries()) {
                    view.put(e.key(), e.revision());
                }
                advance(revision, true);
                call(listener, "snapshot", () -> listener.snapshot(snapshot));
                List<Runnable> held = List.copyOf(early);
                early.clear();
                held.forEach(Runnable::run);
                return;
            }
            if (revision < delivered) {
                LOG.log(Level.WARNING, "directory " + name + ": a listing at revision " + revision
                        + " is older than revision " + delivered + ", already delivered; ignored");
                ensureConnected();
                return;
            }
            connected = true;
            call(listener, "reconnected", () -> listener.reconnected(revision, true));
            List<DirectoryEntry> puts = new ArrayList<>();
            Set<String> present = new HashSet<>();
            for (DirectoryEntry e : snapshot.entries()) {
                present.add(e.key());
                Long last = view.get(e.key());
                if (last == null || last != e.revision()) {
                    puts.add(e);
                }
            }
            List<String> deletes = view.keySet().stream().filter(k -> !present.contains(k)).sorted().toList();
            puts.sort(Comparator.comparingLong(DirectoryEntry::revision).thenComparing(DirectoryEntry::key));
            for (DirectoryEntry e : puts) {
                view.put(e.key(), e.revision());
                advance(e.revision(), false);
                DirectoryEvent event = DirectoryEvent.put(e.key(), e.value(), e.revision(), e.lease(), true);
                call(listener, "changed", () -> listener.changed(event));
            }
            for (String key : deletes) {
                view.remove(key);
                advance(revision, false);
                DirectoryEvent event = DirectoryEvent.delete(key, revision, true);
                call(listener, "changed", () -> listener.changed(event));
            }
            advance(revision, true);
        }

        private void deliverEvent(DirectoryEvent event) {
            if (!listedOnce) {
                early.add(() -> deliverEvent(event));
                return;
            }
            ensureConnected();
            long revision = event.revision();
            String key = event.key();
            if (revision < delivered || (revision == delivered && (revisionComplete || keysAtRevision.contains(key)))) {
                return; // delivered already: a resumed watch replayed it
            }
            Long last = view.get(key);
            if (event.type() == DirectoryEvent.Type.DELETE) {
                if (last == null) {
                    return; // nothing to delete
                }
                view.remove(key);
            } else {
                view.put(key, revision);
            }
            advance(revision, false);
            keysAtRevision.add(key);
            call(listener, "changed", () -> listener.changed(event));
        }

        /** Records that everything below {@code revision} is delivered (and, when complete, all of it). */
        private void advance(long revision, boolean complete) {
            if (revision > delivered) {
                keysAtRevision.clear();
                revisionComplete = false;
                delivered = revision;
            }
            if (complete) {
                revisionComplete = true;
            }
        }
    }
}
