package io.blockxfer.multihost;

import java.util.concurrent.CompletableFuture;

/**
 * One target peer of the service soak as the conductor sees it: its current incarnation, the
 * initiator's session with it, and whether it is registered, removed by the churn, or dead and
 * being restarted.
 *
 * <p><b>Thread safety:</b> not thread-safe; owned by the conductor thread.
 */
final class SoakPeer {

    /** Where a peer is. */
    enum State {
        /** Registered; its session streams. */
        UP,
        /** Removed by the churn (or its re-add failed); re-added at a later tick. */
        REMOVED,
        /** Killed; a new incarnation is starting. */
        DEAD
    }

    final String name;
    final int index;
    SoakTarget target;
    int incarnation = 1;
    PeerSession session;
    /** Which of the peer's two local block ranges the session uses; switches at every restart. */
    int slot;
    State state = State.UP;
    /** Churn re-adds so far, to verify the target's memory at every n-th. */
    long readds;
    /** The kill being recovered from while {@link State#DEAD}. */
    KillRecord kill;
    /** The restart in progress while {@link State#DEAD}. */
    CompletableFuture<SoakTarget> restart;
    int restartAttempts;
    /** The kill this incarnation replaced, or null for the first one. */
    KillRecord bornOf;
    long incarnationDone;
    /** Verified transfers in the current liveness window. */
    long windowVerified;
    /** Whether the peer was killed or restarting during the current liveness window. */
    boolean windowDisturbed;
    long registeredAtMillis;

    SoakPeer(String name, int index, SoakTarget target) {
        this.name = name;
        this.index = index;
        this.target = target;
    }

    @Override
    public String toString() {
        return name + " (" + target.name() + ", " + state + ")";
    }
}
