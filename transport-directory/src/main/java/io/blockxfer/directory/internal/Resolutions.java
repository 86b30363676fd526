package io.blockxfer.directory.internal;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryEntry;
import io.blockxfer.directory.DirectoryEvent;
import io.blockxfer.directory.DirectoryListener;
import io.blockxfer.directory.DirectoryScope;
import io.blockxfer.directory.DirectorySnapshot;
import io.blockxfer.directory.DirectoryWatch;
import io.blockxfer.directory.MemberResolutionException;
import io.blockxfer.directory.Refusal;
import io.blockxfer.directory.internal.Resolution.Waiter;
import io.blockxfer.transport.DataTransport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Members on demand: {@link #resolve} reads one member's key ({@link Directory#read}), has the
 * entry checked and registered as every entry, and completes once the member is writable; then a
 * watch of that key from the read ({@link Directory#watch(DirectoryScope, DirectorySnapshot,
 * DirectoryListener)}) follows the member as any member. Concurrent calls share one resolution.
 *
 * <p><b>At the cost of one read.</b> A member held already completes on the caller's thread. For
 * one that is not, the caller's thread starts the read itself (concurrent callers share it) and
 * hands the resolution to the loop; the read's answer goes to the loop, which checks the entry and
 * starts the registration; the registration's completion makes the member writable and completes
 * the callers on the transport's thread ({@link Registrations#whenWritable}), without a round
 * through the loop. The watch that follows the member starts from the read without waiting for the
 * directory. At most {@code maxHeld} members are held through resolution; past it the one idle
 * longest (no transfer submitted since it was last sampled, none in flight, by
 * {@link DataTransport#traffic}) is released, never one with transfers in flight or still being
 * resolved; while every held member is busy the set stays above its limit and is trimmed once one
 * is idle (sampled every second).
 *
 * <p><b>Thread safety:</b> confined to the membership's loop, but {@link #resolve} and
 * {@link #release} may be called from any thread.
 */
final class Resolutions implements Registrations.Observer {

    /** What a resolution's watch feeds into the membership, and what it asks of it; called on the loop. */
    interface Feed {
        /** Handles a put of a resolved member's key; returns its refusal, or null when accepted. */
        @Nullable Refusal put(DirectoryEntry entry);

        /** Handles a later change of a resolved member's key. */
        void changed(DirectoryEvent event);

        /** Whether a followed scope (every member, or a group) holds {@code id}. */
        boolean followed(String id);

        /** A resolution's watch of {@code scope} lost the directory. */
        void watchDisconnected(Object watch, DirectoryScope scope, String reason);

        /** A resolution's watch is back. */
        void watchReconnected(Object watch, long revision, boolean resync);

        /** A resolution's watch was closed. */
        void watchClosed(Object watch);

        /**
         * The resolution of {@code id} ended: the keys seen through it alone no longer hold the
         * member. Returns whether a followed scope still holds it.
         */
        boolean unresolve(String id);
    }

    private final Directory directory;
    private final String self;
    /** Reads started by callers, shared by concurrent ones, until the loop takes them over. */
    private final Map<String, CompletableFuture<DirectorySnapshot>> reads = new ConcurrentHashMap<>();
    private final MemberTable table;
    private final Registrations registrations;
    private final SerialLoop loop;
    private final Signals signals;
    private final long timeoutNanos;
    private @Nullable Feed feed;
    private final HeldSet heldSet;
    /** The members held through resolve(): written on the loop, read on callers' threads. */
    private final Map<String, Resolution> resolutions = new ConcurrentHashMap<>();
    /** Every resolve() future not yet completed, so that close fails them. */
    private final Set<Waiter> outstanding = ConcurrentHashMap.newKeySet();
    private volatile boolean closing;

    Resolutions(DataTransport transport, Directory directory, String self, MemberTable table,
            Registrations registrations, SerialLoop loop, Signals signals, int maxHeld, Duration timeout) {
        this.directory = directory;
        this.self = self;
        this.table = table;
        this.registrations = registrations;
        this.loop = loop;
        this.signals = signals;
        this.timeoutNanos = timeout.toNanos();
        this.heldSet = new HeldSet(transport, registrations, loop, resolutions, maxHeld, (r, why) -> releaseNow(r.id, why));
    }

    /** Connects the membership's entry handling; once, before the first resolve. */
    void feed(Feed f) {
        this.feed = f;
    }

    private Feed feed() {
        Feed f = feed;
        if (f == null) {
            throw new IllegalStateException("no feed");
        }
        return f;
    }

    private long now() {
        return loop.ticker().nanos();
    }

    /**
     * Resolves {@code id}: completes with its epoch once the transport holds it, at once when it is
     * held already; otherwise watches its key, whose snapshot is the read, checks the entry as every
     * entry is checked, and registers it. Concurrent calls share one resolution. Any thread.
     */
    CompletableFuture<Long> resolve(String id) {
        Waiter w = new Waiter(id);
        if (closing) {
            w.future.completeExceptionally(closed(id, "is closed"));
            return w.future;
        }
        Long held = registrations.epochOf(id);
        if (held != null) {
            Resolution r = resolutions.get(id);
            if (r != null) {
                r.lastActive = now();
            }
            return CompletableFuture.completedFuture(held); // writable already: no hand-over at all
        }
        outstanding.add(w);
        CompletableFuture<DirectorySnapshot> read;
        try {
            read = reads.computeIfAbsent(id, k -> directory.read(DirectoryScope.member(k)));
        } catch (RuntimeException e) {
            read = CompletableFuture.failedFuture(e); // the directory is closed: the loop fails it
        }
        CompletableFuture<DirectorySnapshot> mine = read;
        loop.execute(() -> onResolve(id, w, mine));
        if (closing && outstanding.remove(w)) { // closed while handing it over: the loop may have dropped it
            w.future.completeExceptionally(closed(id, "is closed"));
        }
        return w.future;
    }

    private MemberResolutionException closed(String id, String what) {
        return new MemberResolutionException(id, MemberResolutionException.Reason.CLOSED, "membership '" + self + "' "
                + what, null, null);
    }

    /**
     * After the loop has stopped: closes every resolution's watch and fails every resolution still
     * outstanding as {@link MemberResolutionException.Reason#CLOSED}.
     */
    void close() {
        closing = true;
        for (Resolution r : List.copyOf(resolutions.values())) {
            DirectoryWatch w = r.watch;
            if (w != null) {
                w.close();
            }
        }
        resolutions.clear();
        for (Waiter w : List.copyOf(outstanding)) {
            w.future.completeExceptionally(closed(w.memberId, "was closed"));
        }
        outstanding.clear();
    }

    /** Stops handing out new resolutions (the membership is closing). */
    void closing() {
        closing = true;
    }

    private void onResolve(String id, Waiter w, CompletableFuture<DirectorySnapshot> read) {
        reads.remove(id, read); // taken over: a later resolve reads anew
        CompletableFuture<Long> f = w.future;
        if (f.isDone()) {
            return;
        }
        long now = now();
        Long held = registrations.epochOf(id);
        Resolution r = resolutions.get(id);
        if (held != null) {
            if (r != null) {
                r.lastActive = now;
            }
            outstanding.remove(w);
            f.complete(held); // writable since the call
            return;
        }
        if (r != null) {
            r.lastActive = now;
            await(r, w);
            return;
        }
        Resolution fresh = new Resolution(id, now, outstanding);
        resolutions.put(id, fresh);
        await(fresh, w);
        heldSet.started();
        var unused = read.whenComplete((snapshot, error) -> loop.execute(() -> onRead(fresh, snapshot, error)));
        heldSet.trim();
    }

    private void await(Resolution r, Waiter w) {
        w.timer = loop.schedule(() -> onTimeout(r, w), timeoutNanos);
        r.waiters.add(w);
        var unused = registrations.whenWritable(r.id, w.future);
    }

    @Override
    public void registering(String id) {
        Resolution r = resolutions.get(id);
        if (r != null) {
            for (Waiter w : r.waiters) {
                var unused = registrations.whenWritable(id, w.future);
            }
        }
    }

    /** On the loop: the read of a resolution's key answered. */
    private void onRead(Resolution r, @Nullable DirectorySnapshot snapshot, @Nullable Throwable error) {
        if (resolutions.get(r.id) != r) {
            return;
        }
        if (snapshot == null) {
            Throwable cause = unwrap(error);
            r.fail(MemberResolutionException.Reason.UNAVAILABLE, "member '" + r.id + "' could not be read from "
                    + directory + ": " + cause, null, cause);
            drop(r, "its entry could not be read");
            return;
        }
        String key = directory.prefix() + r.id;
        DirectoryEntry found = null;
        for (DirectoryEntry e : snapshot.entries()) {
            if (e.key().equals(key)) {
                found = e;
            }
        }
        if (found == null) {
            r.fail(MemberResolutionException.Reason.NO_SUCH_MEMBER, "no member '" + r.id + "': " + directory
                    + " holds no entry under " + key, null, null);
            drop(r, "it has no entry");
            return;
        }
        Refusal refusal = feed().put(found);
        if (resolutions.get(r.id) != r) {
            return; // its registration failed at once, which ended it
        }
        if (refusal != null) {
            r.fail(MemberResolutionException.Reason.REFUSED, "the entry of member '" + r.id + "' was refused as "
                    + refusal.reason() + ": " + refusal.message(), refusal, null);
            drop(r, "its entry was refused");
            return;
        }
        r.present = true;
        try {
            r.listener = listener(r);
            r.watch = directory.watch(DirectoryScope.member(r.id), snapshot, r.listener);
        } catch (IllegalStateException e) {
            return; // the directory is closing, and so is this membership
        }
        Long held = registrations.epochOf(r.id);
        if (held != null) {
            r.held = true;
            r.complete(held); // held already (a followed group, or the same entry again)
        }
    }

    private DirectoryListener listener(Resolution r) {
        return new DirectoryListener() {
            @Override
            public void snapshot(DirectorySnapshot snapshot) {
                // the read, handled already
            }

            @Override
            public void changed(DirectoryEvent event) {
                loop.execute(() -> {
                    if (resolutions.get(r.id) == r) {
                        if (event.type() == DirectoryEvent.Type.DELETE) {
                            r.present = false;
                        }
                        feed().changed(event);
                    }
                });
            }

            @Override
            public void disconnected(String reason) {
                loop.execute(() -> feed().watchDisconnected(this, DirectoryScope.member(r.id), reason));
            }

            @Override
            public void reconnected(long revision, boolean resync) {
                loop.execute(() -> feed().watchReconnected(this, revision, resync));
            }

            @Override
            public String toString() {
                return "membership '" + self + "', member '" + r.id + "'";
            }
        };
    }

    private static @Nullable Throwable unwrap(@Nullable Throwable t) {
        Throwable c = t;
        while (c instanceof java.util.concurrent.CompletionException && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }

    /** A put of a resolved member's key was accepted (by any watch). */
    void present(String id) {
        Resolution r = resolutions.get(id);
        if (r != null) {
            r.present = true;
        }
    }

    @Override
    public void registered(String id, long epoch) {
        Resolution r = resolutions.get(id);
        if (r != null) {
            r.held = true;
            r.lastSubmitted = 0; // the transport counts a registration's submits from 0
            r.complete(epoch);
        }
    }

    /**
     * A resolved member's registration failed: the resolution ends with it (its callers fail), and
     * the member's entry is forgotten, unless a followed scope holds it, so that the next resolve
     * reads it again and tries anew.
     */
    @Override
    public void registrationFailed(String id, long epoch, Throwable cause) {
        Resolution r = resolutions.get(id);
        if (r == null) {
            return;
        }
        r.fail(MemberResolutionException.Reason.REGISTRATION_FAILED, "member '" + id + "' (epoch " + epoch
                + ") could not be registered in the transport: " + cause, null, cause);
        end(r);
        if (!feed().unresolve(id)) {
            var unused = table.release(id); // not registered: nothing to remove
            registrations.forget(id);
        }
    }

    /**
     * A resolved member left (its entry is gone, and it is removed from the transport): the
     * resolution ends with its registration; a later resolve reads the member's key again.
     */
    @Override
    public void left(String id) {
        Resolution r = resolutions.get(id);
        if (r == null) {
            return;
        }
        r.fail(MemberResolutionException.Reason.RELEASED, "member '" + id + "' left (its entry was deleted)"
                + " before it became writable", null, null);
        end(r);
        var unused = feed().unresolve(id);
    }

    /** Stops following a resolved member: forgets the resolution and closes its watch. */
    private void end(Resolution r) {
        resolutions.remove(r.id);
        DirectoryWatch w = r.watch;
        if (w != null) {
            w.close();
        }
        DirectoryListener l = r.listener;
        if (l != null) {
            feed().watchClosed(l);
        }
    }

    private void onTimeout(Resolution r, Waiter w) {
        if (!r.waiters.remove(w)) {
            return;
        }
        outstanding.remove(w);
        w.future.completeExceptionally(new MemberResolutionException(r.id, MemberResolutionException.Reason.TIMEOUT,
                "member '" + r.id + "' was not writable within " + Duration.ofNanos(timeoutNanos).toMillis()
                + " ms", null, null));
        if (!r.held && r.waiters.isEmpty() && resolutions.get(r.id) == r) {
            drop(r, "it was not writable within the resolve timeout");
        }
    }

    /** Releases {@code id} if it is held through resolution; any thread; waits for the loop. */
    boolean release(String id, Duration wait) {
        if (loop.inLoop()) {
            return releaseNow(id, "released by the application");
        }
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        loop.execute(() -> done.complete(releaseNow(id, "released by the application")));
        try {
            return done.get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while releasing member '" + id + "'", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("membership '" + self + "' did not release member '" + id + "'", e);
        }
    }

    private boolean releaseNow(String id, String why) {
        Resolution r = resolutions.get(id);
        if (r == null) {
            return false;
        }
        r.fail(MemberResolutionException.Reason.RELEASED, "member '" + id + "' was released (" + why + ")", null,
                null);
        drop(r, why);
        return true;
    }

    /**
     * Stops following a resolved member: closes its watch, and removes it from the transport unless
     * a followed scope holds it; its waiters were told already.
     */
    private void drop(Resolution r, String why) {
        end(r);
        if (feed().unresolve(r.id)) {
            return; // still a member of a followed scope
        }
        Accepted applied = table.applied(r.id);
        MemberTable.Step step = table.release(r.id);
        boolean registeredNow = registrations.epochOf(r.id) != null;
        Long before = null;
        if (step instanceof MemberTable.Remove || registrations.holds(r.id)) {
            before = registrations.remove(r.id);
        } else {
            registrations.forget(r.id);
        }
        long epoch = before != null ? before : applied != null ? applied.epoch() : 0;
        if (r.held || registeredNow) {
            signals.released(r.id, epoch, why);
        }
    }
}
