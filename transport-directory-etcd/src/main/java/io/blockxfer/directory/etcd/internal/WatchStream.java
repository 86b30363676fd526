package io.blockxfer.directory.etcd.internal;

import io.etcd.jetcd.api.WatchCancelRequest;
import io.etcd.jetcd.api.WatchCreateRequest;
import io.etcd.jetcd.api.WatchRequest;
import io.etcd.jetcd.api.WatchResponse;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The one etcd watch stream of a connection: every watch of the process (every directory and
 * membership on that connection, each of their scopes and resolved members) is a watcher on one
 * gRPC {@code Watch} stream, as etcd's protocol allows, instead of a stream each. A watch is
 * created with a create request and identified by the watch id etcd answers with; creates go out
 * one at a time, each once the previous one's "created" answer came (etcd answers creates in
 * order, which is how its own Go client pairs them), so that an answer always belongs to the
 * oldest create sent; events and cancels then carry the watch id.
 *
 * <p><b>Breaks.</b> When the stream ends or fails (etcd unreachable, no leader, a connection reset)
 * every watcher on it, and every create not yet answered, is told {@link Watcher#broken} once; the
 * stream opens again with the next watcher added. When etcd refuses a create for the stream's
 * token ("permission denied" or an invalid token: the token expired, or predates an auth change),
 * the token is renewed and the stream restarted, at most once a second; a refusal that repeats
 * within that second is the watcher's alone ({@link Watcher#canceled}). A watcher etcd cancels (its
 * revision compacted) is told {@link Watcher#canceled}.
 *
 * <p><b>Threads.</b> gRPC calls back on the channel's thread (jetcd's Vert.x event loop): nothing
 * here blocks; watchers must not either. Requests are sent under this object's lock (a stream's
 * sends must not overlap); watchers are called outside it.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class WatchStream {

    private static final System.Logger LOG = System.getLogger(WatchStream.class.getName());
    private static final long TOKEN_RESTART_GAP_NANOS = 1_000_000_000L;

    /** One watch on the stream. Called on gRPC's thread; must not block. */
    public interface Watcher {
        /** The create request (its range and start revision), asked for when it is sent. */
        WatchCreateRequest createRequest();

        /** etcd created the watch; {@code revision} is the header revision of the answer. */
        void created(long revision);

        /** An answer with events (or a progress notice) for this watch. */
        void events(WatchResponse response);

        /** etcd canceled the watch ({@code why}: compacted, or a refusal); it is off the stream. */
        void canceled(Throwable why);

        /** The stream broke under the watch; it is off the stream. */
        void broken(Throwable why);
    }

    /** A watcher's place on the stream; {@link #cancel()} takes it off. */
    public final class Handle {
        private final Watcher watcher;
        private long id = -1;
        private boolean canceled;
        private long stream;

        private Handle(Watcher watcher) {
            this.watcher = watcher;
        }

        /** Takes the watcher off the stream (etcd is asked to cancel it); idempotent; never calls the watcher. */
        public void cancel() {
            cancelHandle(this);
        }
    }

    private final EtcdStubs stubs;
    private final String description;

    // guarded by this
    private @Nullable ClientCallStreamObserver<WatchRequest> call;
    private long generation;
    /** A stream of the current generation is being started (outside the lock). */
    private boolean opening;
    private final ArrayDeque<Handle> unsent = new ArrayDeque<>();
    private @Nullable Handle awaitingCreated;
    private final Map<Long, Handle> active = new HashMap<>();
    private long lastTokenRestart;
    private long opened;
    private boolean closed;

    /** The stream of the connection behind {@code stubs}; it opens with the first watcher. */
    public WatchStream(EtcdStubs stubs, String description) {
        this.stubs = stubs;
        this.description = description;
    }

    /** How many times the stream was opened: once, unless it broke. */
    public synchronized long opened() {
        return opened;
    }

    /** How many watchers are on the stream now, created or waiting for their create. */
    public synchronized int watchers() {
        return active.size() + unsent.size() + (awaitingCreated == null ? 0 : 1);
    }

    /**
     * Adds {@code watcher}: its create request goes out once the stream is open and the creates
     * before it are answered. Never blocks.
     */
    public Handle add(Watcher watcher) {
        Handle h = new Handle(watcher);
        boolean refused;
        long start = -1;
        synchronized (this) {
            refused = closed;
            if (!refused) {
                unsent.add(h);
                if (call == null && !opening) {
                    start = beginOpen();
                } else {
                    sendNext();
                }
            }
        }
        if (refused) {
            watcher.broken(Status.UNAVAILABLE.withDescription("the etcd connection is closed").asRuntimeException());
        }
        if (start >= 0) {
            open(start);
        }
        return h;
    }

    /** Under the lock: a new stream generation is about to be started; returns it. */
    private long beginOpen() {
        opening = true;
        opened++;
        return ++generation;
    }

    /** Ends the stream for good (the connection closes); its watchers are not told. */
    public void close() {
        ClientCallStreamObserver<WatchRequest> c;
        synchronized (this) {
            closed = true;
            c = call;
            call = null;
            opening = false;
            generation++;
            unsent.clear();
            active.clear();
            awaitingCreated = null;
        }
        if (c != null) {
            try {
                c.cancel("the etcd connection is closed", null);
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "canceling the watch stream failed", e);
            }
        }
    }

    /** Outside the lock: starts stream {@code gen}, then sends the first create on it. */
    private void open(long gen) {
        ClientCallStreamObserver<WatchRequest> started;
        try {
            started = start(gen);
        } catch (RuntimeException e) {
            ended(gen, Status.UNAVAILABLE.withDescription("the watch stream could not start").withCause(e)
                    .asRuntimeException());
            return;
        }
        ClientCallStreamObserver<WatchRequest> stale = null;
        synchronized (this) {
            if (gen == generation && !closed) {
                opening = false;
                call = started;
                sendNext();
            } else {
                stale = started; // it ended, or the connection closed, while it started
            }
        }
        if (stale != null) {
            try {
                stale.cancel("superseded", null);
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "canceling a superseded watch stream failed", e);
            }
        }
    }

    private ClientCallStreamObserver<WatchRequest> start(long gen) {
        return (ClientCallStreamObserver<WatchRequest>) stubs.watch().watch(
                new ClientResponseObserver<WatchRequest, WatchResponse>() {
            @Override
            public void beforeStart(ClientCallStreamObserver<WatchRequest> requests) {
            }

            @Override
            public void onNext(WatchResponse response) {
                received(gen, response);
            }

            @Override
            public void onError(Throwable t) {
                ended(gen, t);
            }

            @Override
            public void onCompleted() {
                ended(gen, Status.UNAVAILABLE.withDescription("etcd ended the watch stream").asRuntimeException());
            }
        });
    }

    /** Under the lock: sends the next create, if none awaits its answer. */
    private void sendNext() {
        ClientCallStreamObserver<WatchRequest> c = call;
        if (c == null || awaitingCreated != null) {
            return;
        }
        Handle next;
        while ((next = unsent.poll()) != null && next.canceled) {
            // taken off before it was sent
        }
        if (next == null) {
            return;
        }
        next.stream = generation;
        awaitingCreated = next;
        send(c, WatchRequest.newBuilder().setCreateRequest(next.watcher.createRequest()).build());
    }

    private void send(ClientCallStreamObserver<WatchRequest> c, WatchRequest request) {
        try {
            c.onNext(request);
        } catch (RuntimeException e) {
            // the call has ended: its onError tells the watchers
            LOG.log(Level.DEBUG, () -> description + ": a watch request could not be sent: " + e);
        }
    }

    private void cancelHandle(Handle h) {
        synchronized (this) {
            if (h.canceled) {
                return;
            }
            h.canceled = true;
            unsent.remove(h);
            ClientCallStreamObserver<WatchRequest> c = call;
            if (h.id >= 0 && active.remove(h.id) == h && c != null && h.stream == generation) {
                send(c, WatchRequest.newBuilder().setCancelRequest(WatchCancelRequest.newBuilder()
                        .setWatchId(h.id)).build());
            }
            // a create still awaiting its answer is canceled when the answer comes
        }
    }

    /** gRPC's thread: an answer on stream {@code gen}. */
    private void received(long gen, WatchResponse response) {
        Handle tell = null;
        Throwable canceledWhy = null;
        boolean restart = false;
        long createdAt = -1;
        synchronized (this) {
            if (gen != generation) {
                return;
            }
            ClientCallStreamObserver<WatchRequest> c = call;
            if (response.getCreated()) {
                Handle h = awaitingCreated;
                awaitingCreated = null;
                if (h == null) {
                    LOG.log(Level.WARNING, description + ": etcd answered a watch create that was not sent (watch id "
                            + response.getWatchId() + "); ignored");
                } else if (response.getCanceled() || response.getWatchId() < 0) {
                    String reason = response.getCancelReason();
                    if (tokenRefused(reason) && System.nanoTime() - lastTokenRestart > TOKEN_RESTART_GAP_NANOS) {
                        // the stream's token expired or predates an auth change: a new token, a new stream
                        lastTokenRestart = System.nanoTime();
                        unsent.addFirst(h);
                        restart = true;
                    } else if (!h.canceled) {
                        tell = h;
                        canceledWhy = refusal(reason);
                    }
                } else if (h.canceled) {
                    if (c != null) {
                        send(c, WatchRequest.newBuilder().setCancelRequest(WatchCancelRequest.newBuilder()
                                .setWatchId(response.getWatchId())).build());
                    }
                } else {
                    h.id = response.getWatchId();
                    active.put(h.id, h);
                    tell = h;
                    createdAt = response.getHeader().getRevision();
                }
                if (!restart) {
                    sendNext();
                }
            } else if (response.getCanceled()) {
                Handle h = active.remove(response.getWatchId());
                if (h != null && !h.canceled) {
                    tell = h;
                    canceledWhy = response.getCompactRevision() != 0 ? compacted(response.getCompactRevision())
                            : refusal(response.getCancelReason());
                }
            } else {
                tell = active.get(response.getWatchId());
            }
        }
        if (restart) {
            stubs.refreshToken();
            restart(gen, "etcd refused the stream's token (" + response.getCancelReason() + "): renewed");
            return;
        }
        if (tell == null) {
            return;
        }
        if (canceledWhy != null) {
            tell.watcher.canceled(canceledWhy);
        } else if (createdAt >= 0) {
            tell.watcher.created(createdAt);
        } else {
            tell.watcher.events(response);
        }
    }

    /** gRPC's thread: stream {@code gen} ended; every watcher on it is told. */
    private void ended(long gen, Throwable why) {
        List<Handle> broken;
        synchronized (this) {
            if (gen != generation) {
                return;
            }
            broken = takeAll();
        }
        LOG.log(Level.DEBUG, () -> description + ": the watch stream ended (" + EtcdErrors.describe(why) + "); "
                + broken.size() + " watches break");
        for (Handle h : broken) {
            h.watcher.broken(why);
        }
    }

    /** Ends stream {@code gen} and opens another for its watchers' creates (their creates go again). */
    private void restart(long gen, String why) {
        ClientCallStreamObserver<WatchRequest> old;
        List<Handle> broken;
        long next;
        synchronized (this) {
            if (gen != generation || closed) {
                return;
            }
            old = call;
            call = null;
            // the created watchers resume through their own reconnect (from the revision after their last);
            // those not created yet go out on the new stream
            List<Handle> created = new ArrayList<>(active.values());
            active.clear();
            Handle pending = awaitingCreated;
            awaitingCreated = null;
            if (pending != null) {
                unsent.addFirst(pending);
            }
            broken = created;
            next = beginOpen();
        }
        open(next);
        if (old != null) {
            try {
                old.cancel(why, null);
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "canceling the old watch stream failed", e);
            }
        }
        Throwable reason = Status.UNAVAILABLE.withDescription(why).asRuntimeException();
        for (Handle h : broken) {
            h.watcher.broken(reason);
        }
    }

    /** Under the lock: every watcher on the stream, which is gone. */
    private List<Handle> takeAll() {
        List<Handle> all = new ArrayList<>();
        Handle pending = awaitingCreated;
        if (pending != null && !pending.canceled) {
            all.add(pending);
        }
        for (Handle h : active.values()) {
            if (!h.canceled) {
                all.add(h);
            }
        }
        for (Handle h : unsent) {
            if (!h.canceled) {
                all.add(h);
            }
        }
        awaitingCreated = null;
        active.clear();
        unsent.clear();
        call = null;
        opening = false;
        generation++;
        return all;
    }

    private static boolean tokenRefused(String reason) {
        return reason.contains("etcdserver: permission denied") || reason.contains("etcdserver: invalid auth token")
                || reason.contains("auth store is old");
    }

    private static Throwable compacted(long revision) {
        return Status.OUT_OF_RANGE.withDescription("etcdserver: mvcc: required revision has been compacted"
                + " (compact revision " + revision + ")").asRuntimeException();
    }

    private static Throwable refusal(String reason) {
        if (reason.contains("permission denied")) {
            return Status.PERMISSION_DENIED.withDescription(reason).asRuntimeException();
        }
        return Status.FAILED_PRECONDITION.withDescription(reason.isEmpty()
                ? "etcd canceled the watch (its revision is in the future)" : reason).asRuntimeException();
    }

    @Override
    public String toString() {
        return "WatchStream[" + description + "]";
    }
}
