package io.blockxfer.cli.internal;

import java.time.Duration;

/**
 * The target's count and timing of a measured run's notifications, wherever the target lives: a
 * {@link NotificationCollector} in this process, in the child target process, or in a bench
 * server's session, started on first use and ended with its {@link PeerPair}.
 *
 * <p><b>Thread safety:</b> not thread-safe; for the measuring thread.
 */
public interface TargetNotifications {

    /**
     * Counts and times from now on the notifications stamped with {@code tag} ({@link NotifyStamp}),
     * the target's thread taking them in {@code style}.
     */
    void arm(long tag, TakerStyle style);

    /**
     * Waits until {@code expected} notifications of the armed run arrived at the target or
     * {@code limit} passed, and stops counting them.
     */
    NotifyTally disarm(long expected, Duration limit);

    /**
     * How far off the target's latencies of the last disarmed run may be through the clocks alone,
     * in nanoseconds: 0 where the target reads the initiator's clock (one host, one kernel), else
     * the bound of the estimated offset between the two hosts' clocks and its drift during the run.
     */
    long clockErrorNanos();
}
