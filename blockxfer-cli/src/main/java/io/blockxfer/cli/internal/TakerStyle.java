package io.blockxfer.cli.internal;

/**
 * How the target's thread takes its notifications in {@code bench --notify} ({@code --notify-take}):
 * as a receiver that waits for them, or as one that polls for them in a loop of its own (an
 * inference engine's scheduler that looks for arrivals at every step).
 *
 * <p><b>Thread safety:</b> an enum; immutable.
 */
public enum TakerStyle {
    /**
     * {@code pollNotifications(handler, limit)}: a short spin, then a park until a notification
     * arrives; no core is spent, and a notification that finds the thread parked waits for its wake-up.
     */
    WAIT,
    /**
     * {@code pollNotifications(handler)} again at once after an empty poll: a core busy taking, and
     * a notification seen as soon as the target's transport has it.
     */
    SPIN
}
