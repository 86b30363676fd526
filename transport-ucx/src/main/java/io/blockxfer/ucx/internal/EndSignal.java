package io.blockxfer.ucx.internal;

import io.blockxfer.transport.spi.CompletionSignal;
import org.jspecify.annotations.Nullable;

/**
 * Tells the transport that transfers of a {@link ProgressLoop} ended, through the
 * {@link CompletionSignal} the engine was bound to. Every place that makes a transfer terminal
 * notes it ({@link #ended}); the owner of the worker fires once per round, after the round
 * ({@link #fireIfEnded}), never inside a JUCX callback, where a waiter's lock would be taken
 * under a native frame. What ends outside a round (a command rejected after the loop ended, the
 * transfers shutdown fails) fires at once ({@link #fire}).
 *
 * <p><b>Thread safety:</b> {@link #bind} and {@link #fire} from any thread (the signal is
 * volatile); {@link #ended} and {@link #fireIfEnded} by the owner of the loop's worker (the flag
 * passes from owner to owner with the worker).
 */
final class EndSignal {

    private volatile @Nullable CompletionSignal signal;

    // ---- owner only
    private boolean ended;

    /** From now on, ends are told to {@code s}. */
    void bind(CompletionSignal s) {
        this.signal = s;
    }

    /** Whether a signal is bound. */
    boolean bound() {
        return signal != null;
    }

    /** A transfer became terminal in this round. Owner only. */
    void ended() {
        ended = true;
    }

    /** After a round: fires the signal if a transfer ended in it. Owner only. */
    void fireIfEnded() {
        if (ended) {
            ended = false;
            fire();
        }
    }

    /** Fires the signal now (transfers ended outside a round). */
    void fire() {
        CompletionSignal s = signal;
        if (s != null) {
            s.signal();
        }
    }
}
