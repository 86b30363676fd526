package io.blockxfer.directory.etcd.internal;

import io.blockxfer.directory.DirectoryDispatcher;
import io.blockxfer.directory.DirectoryListener;
import io.blockxfer.directory.DirectoryScope;
import io.blockxfer.directory.DirectorySnapshot;
import io.blockxfer.directory.DirectoryWatch;
import com.google.protobuf.ByteString;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.api.Event;
import io.etcd.jetcd.api.KeyValue;
import io.etcd.jetcd.api.WatchCreateRequest;
import io.etcd.jetcd.api.WatchResponse;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One watch of a {@link DirectoryScope} under a prefix, mapped onto a
 * {@link DirectoryDispatcher.Relay}. The scope is one key range
 * {@code [scope.start(prefix), scope.end(prefix))} (a single key is {@code [key, key + "\0")}),
 * listed with one paged range read ({@link RangeLister}) and followed with one etcd watch with that
 * range end, a watcher on the connection's one {@link WatchStream}; nothing is filtered here. A
 * listing, then an etcd watch from the listing's revision + 1; when the watch breaks, a new one from {@link DirectoryDispatcher.Relay#resumeRevision()},
 * and when etcd answers that this revision is compacted (or a catch-up answer is too large to
 * receive), a new listing, whose differences the relay delivers as a resync. Before a watch
 * resumes, a read at the revision it resumes after shows whether etcd still has that history (see
 * {@link #rewatch()}).
 *
 * <p>Every break (the stream's, or etcd canceling this watcher) takes the watcher off the stream
 * and adds a new one here, from the relay's revision; the relay drops what a new watch replays.
 * The stream requires a leader: a member cut off from its cluster's majority ends it ("no leader")
 * instead of keeping it silently open, and the watches move to another member.
 * Values are not asked for with their previous version (prev-kv): a delete needs only its key.
 * A put carries the lease its key is attached to (0 for a plain put).
 *
 * <p>Threads: the stream calls back on gRPC's thread (jetcd's event loop); the watcher only hands
 * events to the relay (which queues them for the dispatcher's thread) under this object's lock, and
 * moves everything else (the next watch, a listing) to the connection's timer thread. The stream
 * is never called under this object's lock.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class RangeWatch implements DirectoryWatch {

    private static final System.Logger LOG = System.getLogger(RangeWatch.class.getName());
    private static final long[] BACKOFF_MILLIS = {100, 250, 500, 1000, 2000};

    private final EtcdConnection connection;
    private final RangeLister lister;
    private final ByteSequence start;
    private final ByteSequence end;
    private final String description;
    private final DirectoryDispatcher.Relay relay;
    private final Consumer<RangeWatch> onStop;

    // guarded by this
    private long generation;
    private WatchStream.@Nullable Handle current;
    private int failures;
    private boolean stopped;

    /**
     * A watch of the keys of {@code scope} under {@code prefix} that delivers to {@code listener}
     * through {@code dispatcher}; it starts with {@link #start(long)}.
     *
     * @param onStop told once when the watch stops
     */
    public RangeWatch(EtcdConnection connection, String prefix, DirectoryScope scope, DirectoryDispatcher dispatcher,
            DirectoryListener listener, Consumer<RangeWatch> onStop) {
        this.connection = connection;
        this.description = scope + " under " + prefix;
        this.start = ByteSequence.from(scope.start(prefix), StandardCharsets.UTF_8);
        this.end = ByteSequence.from(scope.end(prefix), StandardCharsets.UTF_8);
        this.lister = new RangeLister(connection.kv(), start, end, connection.timer());
        this.onStop = onStop;
        this.relay = dispatcher.relay(listener, this::stop);
    }

    /**
     * Lists the range (waiting at most until {@code deadline}), hands the listing to the relay and
     * starts watching after it.
     *
     * @throws io.blockxfer.directory.DirectoryUnavailableException if the listing did not complete
     *     in time; the watch is closed then
     */
    public void start(long deadline) {
        RangeLister.Listing listing;
        try {
            listing = connection.call(lister::list, deadline, "list " + description);
        } catch (RuntimeException e) {
            relay.close();
            throw e;
        }
        long gen;
        synchronized (this) {
            if (stopped) {
                return;
            }
            gen = ++generation;
            relay.listed(listing.entries(), listing.revision());
        }
        open(gen, listing.revision() + 1);
    }

    /**
     * Starts from a read of the range made before: hands {@code from} to the relay as its listing
     * and watches after it, without waiting for etcd (a watch that cannot start now breaks and
     * tries again, as any).
     */
    public void startFrom(DirectorySnapshot from) {
        long gen;
        synchronized (this) {
            if (stopped) {
                return;
            }
            gen = ++generation;
            relay.listed(from.entries(), from.revision());
        }
        open(gen, from.revision() + 1);
    }

    @Override
    public long revision() {
        return relay.revision();
    }

    @Override
    public void close() {
        relay.close();
    }

    /** Stops without a word to the listener (the relay is closed first). */
    public void abandon() {
        relay.close();
    }

    /** The relay's close hook: stops the etcd watch. */
    private void stop() {
        WatchStream.Handle old;
        synchronized (this) {
            if (stopped) {
                return;
            }
            stopped = true;
            generation++;
            old = current;
            current = null;
        }
        onStop.accept(this);
        closeQuietly(old);
    }

    /** Puts a watcher from {@code from} for generation {@code gen} on the stream; never under the lock. */
    private void open(long gen, long from) {
        WatchCreateRequest request = WatchCreateRequest.newBuilder().setKey(ByteString.copyFrom(start.getBytes()))
                .setRangeEnd(ByteString.copyFrom(end.getBytes())).setStartRevision(from).build();
        WatchStream.Handle handle = connection.watchStream().add(new Listener(gen, request));
        synchronized (this) {
            if (gen == generation && !stopped) {
                current = handle;
                return;
            }
        }
        handle.cancel(); // superseded while it opened
    }

    /** Generation {@code gen}'s watch broke ({@code error} null: it ended): reconnect or resync. */
    private void broken(long gen, @Nullable Throwable error) {
        WatchStream.Handle old;
        boolean resync;
        long delay;
        synchronized (this) {
            if (gen != generation || stopped) {
                return;
            }
            generation++;
            old = current;
            current = null;
            resync = error != null && (EtcdErrors.isCompacted(error) || EtcdErrors.isTooLarge(error));
            String reason = error == null ? "the etcd watch ended"
                    : EtcdErrors.isCompacted(error) ? "etcd compacted its history past revision "
                            + (relay.resumeRevision() - 1) + ": listing the keys again"
                    : EtcdErrors.isTooLarge(error) ? "an etcd watch answer exceeded the client's limit of "
                            + EtcdConnection.MAX_INBOUND_BYTES + " bytes: listing the keys again"
                    : "etcd watch broke: " + connection.describeFailure(error);
            relay.disconnected(reason);
            if (error == null || EtcdErrors.isUnavailable(error)) {
                connection.unreachable();
            }
            delay = resync ? 0 : BACKOFF_MILLIS[Math.min(failures, BACKOFF_MILLIS.length - 1)];
            // an error that is not about reaching etcd (a refusal, say) is worth a warning, once
            // until the watch is back; the listener hears of every break anyway
            boolean unexpected = error != null && !resync && !EtcdErrors.isUnavailable(error)
                    && EtcdErrors.code(error) != io.grpc.Status.Code.INTERNAL;
            LOG.log(unexpected && failures == 0 ? Level.WARNING : Level.DEBUG,
                    () -> "watch of " + description + " on etcd " + connection.endpoints() + ": " + reason);
            failures++;
        }
        schedule(() -> closeQuietly(old), 0);
        schedule(resync ? this::resync : this::rewatch, delay);
    }

    /**
     * On the timer thread: a new etcd watch from the relay's revision, once a read at the revision
     * before it shows that etcd still has that history. Without the read, a watch from a compacted
     * revision would first be created (a "created" answer, taken for a reconnect) and only then
     * cancelled as compacted; with it, the listener sees one reconnect, a resync. (A compaction
     * between the read and the watch still takes that longer way.) The read waits for a connection
     * as long as the operation timeout, then is tried again.
     */
    private void rewatch() {
        long from;
        synchronized (this) {
            if (stopped) {
                return;
            }
            from = relay.resumeRevision();
        }
        GetOption probe = GetOption.builder().withRange(end).withLimit(1).withKeysOnly(true).withRevision(from - 1)
                .build();
        CompletableFuture<GetResponse> read;
        try {
            read = connection.kv().get(start, probe);
        } catch (RuntimeException e) {
            return; // the client is closed
        }
        var unused = read.whenCompleteAsync((response, error) -> {
            if (error != null && EtcdErrors.isCompacted(error)) {
                resync();
                return;
            }
            if (error != null) {
                if (EtcdErrors.isUnavailable(error)) {
                    connection.unreachable();
                }
                long delay;
                synchronized (this) {
                    if (stopped) {
                        return;
                    }
                    delay = BACKOFF_MILLIS[Math.min(failures, BACKOFF_MILLIS.length - 1)];
                    failures++;
                }
                LOG.log(Level.DEBUG, () -> "watch of " + description + ": etcd not back yet ("
                        + connection.describeFailure(error) + "); again in " + delay + " ms");
                schedule(this::rewatch, delay);
                return;
            }
            long gen;
            synchronized (this) {
                if (stopped) {
                    return;
                }
                gen = ++generation;
            }
            open(gen, from);
        }, connection.timer());
    }

    /** On the timer thread: a new listing (the relay delivers its differences), then a watch after it. */
    private void resync() {
        synchronized (this) {
            if (stopped) {
                return;
            }
        }
        var unused = lister.list().whenCompleteAsync((listing, error) -> {
            long gen;
            synchronized (this) {
                if (stopped) {
                    return;
                }
                if (error != null) {
                    long delay = BACKOFF_MILLIS[Math.min(failures, BACKOFF_MILLIS.length - 1)];
                    failures++;
                    LOG.log(Level.DEBUG, () -> "watch of " + description + ": listing for a resync failed ("
                            + EtcdErrors.describe(error) + "); again in " + delay + " ms");
                    schedule(this::resync, delay);
                    return;
                }
                gen = ++generation;
                relay.listed(listing.entries(), listing.revision());
            }
            open(gen, listing.revision() + 1);
        }, connection.timer());
    }

    private void schedule(Runnable task, long delayMillis) {
        try {
            var unused = connection.timer().schedule(task, delayMillis, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // the directory is closing
        }
    }

    private static void closeQuietly(WatchStream.@Nullable Handle handle) {
        if (handle == null) {
            return;
        }
        try {
            handle.cancel();
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "taking an etcd watcher off the stream failed", e);
        }
    }

    /** The watcher of one generation on the stream: called on gRPC's thread; never blocks. */
    private final class Listener implements WatchStream.Watcher {
        private final long gen;
        private final WatchCreateRequest request;

        Listener(long gen, WatchCreateRequest request) {
            this.gen = gen;
            this.request = request;
        }

        @Override
        public WatchCreateRequest createRequest() {
            return request;
        }

        @Override
        public void created(long revision) {
            synchronized (RangeWatch.this) {
                if (gen != generation || stopped) {
                    return;
                }
                connection.reachable();
                failures = 0;
                relay.resumed();
            }
        }

        @Override
        public void events(WatchResponse response) {
            synchronized (RangeWatch.this) {
                if (gen != generation || stopped) {
                    return;
                }
                for (Event event : response.getEventsList()) {
                    KeyValue kv = event.getKv();
                    String key = kv.getKey().toStringUtf8();
                    switch (event.getType()) {
                        case PUT -> relay.put(key, kv.getValue().toByteArray(), kv.getModRevision(), kv.getLease());
                        case DELETE -> relay.deleted(key, kv.getModRevision());
                        default -> LOG.log(Level.WARNING, "watch of " + description + ": an etcd event of unknown type "
                                + event.getType() + " at revision " + kv.getModRevision() + " ignored");
                    }
                }
            }
        }

        @Override
        public void canceled(Throwable why) {
            RangeWatch.this.broken(gen, why);
        }

        @Override
        public void broken(Throwable why) {
            RangeWatch.this.broken(gen, why);
        }
    }
}
