package io.blockxfer.tck;

import io.blockxfer.transport.PeerDescriptor;

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
     * Freezes or thaws the target, so transfers to it neither complete nor fail by themselves.
     *
     * @throws UnsupportedOperationException if {@link #canStall()} is false
     */
    void stall(boolean stalled);

    /** Closes the target; idempotent. */
    @Override
    void close();
}
