package io.blockxfer.directory.internal;

import io.blockxfer.directory.DirectoryListener;
import io.blockxfer.directory.DirectoryWatch;
import io.blockxfer.directory.MemberResolutionException;
import io.blockxfer.directory.Refusal;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A member held through {@code Membership.resolve}: its watch, its callers waiting for it, and how
 * recently it was used.
 *
 * <p><b>Thread safety:</b> confined to the membership's loop, but {@link #lastActive} is written by
 * callers that find the member held.
 */
final class Resolution {

    /** One call of {@code resolve}: its future and its timeout (identity equality). */
    static final class Waiter {
        final String memberId;
        final CompletableFuture<Long> future = new CompletableFuture<>();
        SerialLoop.@Nullable Timer timer;

        Waiter(String memberId) {
            this.memberId = memberId;
        }

        void cancelTimer() {
            SerialLoop.Timer t = timer;
            if (t != null) {
                t.cancel();
            }
        }
    }

    final String id;
    private final Set<Waiter> outstanding;
    @Nullable DirectoryWatch watch;
    @Nullable DirectoryListener listener;
    /** Registered once at least (it counts against the limit from its first resolve on). */
    boolean held;
    /** Whether its key holds an entry, as last seen. */
    boolean present;
    /** Written by callers that find it held, read on the loop. */
    volatile long lastActive;
    long lastSubmitted;
    final List<Waiter> waiters = new ArrayList<>();

    /** A resolution of {@code id} started at {@code now}; its callers are also in {@code outstanding} until told. */
    Resolution(String id, long now, Set<Waiter> outstanding) {
        this.id = id;
        this.lastActive = now;
        this.outstanding = outstanding;
    }

    /** Completes every caller with {@code epoch}. */
    void complete(long epoch) {
        for (Waiter w : waiters) {
            w.cancelTimer();
            outstanding.remove(w);
            w.future.complete(epoch);
        }
        waiters.clear();
    }

    /** Fails every caller with a {@link MemberResolutionException} of {@code reason}. */
    void fail(MemberResolutionException.Reason reason, String message, @Nullable Refusal refusal,
            @Nullable Throwable cause) {
        for (Waiter w : waiters) {
            w.cancelTimer();
            outstanding.remove(w);
            w.future.completeExceptionally(new MemberResolutionException(id, reason, message, refusal, cause));
        }
        waiters.clear();
    }

    /** Forgets the callers whose futures completed (on the transport's thread, say). */
    void settle() {
        waiters.removeIf(w -> {
            if (!w.future.isDone()) {
                return false;
            }
            w.cancelTimer();
            outstanding.remove(w);
            return true;
        });
    }
}
