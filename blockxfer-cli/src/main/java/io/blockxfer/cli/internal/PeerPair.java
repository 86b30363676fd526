package io.blockxfer.cli.internal;

import io.blockxfer.transport.DataTransport;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * An initiator transport in this process with one registered target peer, in this process or in a
 * child process, plus memory of the target's size in this process for the memcpy baseline.
 *
 * <p><b>Thread safety:</b> the initiator is thread-safe; the other methods are for one thread.
 */
public interface PeerPair extends AutoCloseable {

    /** The peer id under which the target is registered with {@link #initiator()}. */
    String PEER = "target";

    /** The transport that submits and polls. */
    DataTransport initiator();

    /**
     * Memory in this process with the target region's geometry: the target region itself when
     * the target lives here, otherwise a stand-in of the same size.
     */
    MemorySegment baselineTarget();

    /** Fills target block {@code block} with the pattern of {@code seed}. */
    void fillTarget(int block, long seed);

    /** The first byte of target block {@code block} that differs from the pattern of {@code seed}, or -1. */
    long targetMismatch(int block, long seed);

    /**
     * The target's count and timing of notifications ({@code bench --notify}); the target starts
     * taking its notifications on the first {@link TargetNotifications#arm}. Only for a backend
     * that carries notifications at this site.
     */
    TargetNotifications notifications();

    /**
     * The ceilings of the link between the two hosts, when the target is on another host (or at
     * least behind the bench control channel); empty for targets on this host.
     */
    default Optional<WireProbe> wire() {
        return Optional.empty();
    }

    /** Closes both sides; idempotent. */
    @Override
    void close();
}
