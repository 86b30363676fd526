package io.blockxfer.tck;

import io.blockxfer.transport.NotificationStats;
import io.blockxfer.transport.PeerDescriptor;
import java.time.Duration;
import java.util.List;

/**
 * The far side of a conformance pair: a transport, in this JVM or another process, whose blocks
 * the kit can fill and verify and which the kit can kill or stall.
 *
 * <p><b>Thread safety:</b> implementations must be thread-safe.
 */
public interface TargetPeer extends AutoCloseable {

    /** The descriptor the initiator registers. */
    PeerDescriptor descriptor();

    /** The number of blocks of the target's region. */
    int numBlocks();

    /** Fills target block {@code block} with the {@link BlockPattern} of {@code seed}. */
    void fill(int block, long seed);

    /** The first byte of target block {@code block} that differs from the pattern of {@code seed}, or -1. */
    long firstMismatch(int block, long seed);

    /** Ends the target as abruptly as the setting allows (closing it in one JVM, SIGKILL across processes). */
    void kill();

    /** Whether {@link #stall(boolean)} works for this target. */
    boolean canStall();

    /**
     * Freezes or thaws the target. Its blocks must not be read or filled while it is frozen.
     *
     * @throws UnsupportedOperationException if {@link #canStall()} is false
     */
    void stall(boolean stalled);

    /**
     * Whether a stall is guaranteed to hold every transfer to this target in flight until the thaw
     * (true for a backend's own fault injection). A frozen process does not hold one-sided writes
     * into memory its backend maps without the target's CPU (shared memory), so across processes
     * this is false and the rules accept "done, with the bytes verified after the thaw" as well as
     * "failed within the deadline" (never "still pending after it").
     */
    default boolean stallHoldsTransfers() {
        return canStall();
    }

    /** Registers a peer with the target (so that it names that peer's notifications by {@code peerId}). */
    void addPeer(String peerId, PeerDescriptor peer);

    /**
     * Takes the notifications the target receives until {@code count} arrived or {@code limit}
     * passed, acting on each at delivery as {@link NotificationProbe} says (checking or filling the
     * blocks its payload names).
     */
    List<ReceivedNotification> takeNotifications(int count, Duration limit);

    /** The target's notification counts. */
    NotificationStats notificationStats();

    /** Closes the target; idempotent. */
    @Override
    void close();
}
