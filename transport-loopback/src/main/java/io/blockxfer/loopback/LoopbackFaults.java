package io.blockxfer.loopback;

import java.time.Duration;

/**
 * Fault injection for users' own tests, from a loopback transport:
 * {@code transport.feature(LoopbackFaults.class).orElseThrow()}.
 *
 * <p>Faults act on the transport they were taken from: as an initiator ({@link #failNextSubmits},
 * {@link #delayCompletions}) or as the peer others transfer to ({@link #stall}, {@link #kill}).
 *
 * <p><b>Thread safety:</b> thread-safe; a fault takes effect for transfers that start or are next
 * examined after the call.
 */
public interface LoopbackFaults {

    /**
     * The next {@code count} submits of this transport fail natively: each still returns an id,
     * which is reported failed.
     */
    void failNextSubmits(int count);

    /**
     * Freezes or thaws this transport as a target: transfers to or from it stay in flight while it
     * is stalled (until the initiator's deadline fails them), and resume when it thaws.
     */
    void stall(boolean stalled);

    /**
     * Kills this transport as if its process died: every transfer in flight to, from or by it
     * fails, new registrations of it fail, and its own submits fail. Irreversible; close it
     * afterwards as usual.
     */
    void kill();

    /** Whether {@link #kill()} was called. */
    boolean isKilled();

    /**
     * Reports this transport's transfers done no earlier than {@code delay} after their submit
     * (the bytes move at once); {@link Duration#ZERO} turns the delay off.
     */
    void delayCompletions(Duration delay);

    /**
     * Delivers the notifications of this transport's transfers to their targets no earlier than
     * {@code delay} after the transfer's bytes landed (the transfer is reported done after that);
     * {@link Duration#ZERO} turns the delay off. Legal behaviour of a slow network.
     */
    void delayNotifications(Duration delay);

    /**
     * Breaks the notification contract on purpose: each notification of this transport's
     * transfers reaches its target {@code lead} before the transfer's bytes are copied, as a
     * backend that sent the message before the data was visible would. For testing that a
     * receiver, or a conformance rule, catches such a backend; {@link Duration#ZERO} turns it off.
     */
    void notifyBeforeData(Duration lead);
}
