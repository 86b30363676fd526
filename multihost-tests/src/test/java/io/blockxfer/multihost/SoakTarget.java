package io.blockxfer.multihost;

import io.blockxfer.transport.PeerDescriptor;
import java.nio.file.Path;
import java.util.Set;

/**
 * One incarnation of a target peer of the service soak: a passive transport whose region the
 * initiator writes and reads, which answers the commands of {@link TargetRole} ({@code FILLALL},
 * {@code VERIFY}), and which can be killed. A restart is a new incarnation with a new descriptor.
 *
 * <p><b>Thread safety:</b> implementations are thread-safe; requests are serialised.
 */
interface SoakTarget extends AutoCloseable {

    /** The incarnation's name, e.g. {@code t2#3}. */
    String name();

    /** The descriptor the initiator registers. */
    PeerDescriptor descriptor();

    /** The pattern family the region was filled with at start. */
    long family();

    /** The process id, or -1 for a target in the initiator's JVM. */
    long pid();

    /**
     * Runs one {@link TargetRole} command and returns its reply's fields.
     *
     * @throws IllegalStateException if the target refuses it or does not answer
     */
    EventFields request(String command);

    /** Ends the target abruptly: SIGKILL for a process. Idempotent. */
    void kill();

    /** The UCX POSIX segment files the target was seen mapping. */
    Set<Path> shmFiles();

    /**
     * Ends the target: a killed one is waited for, a live one is asked to close and killed by its
     * pid if it does not exit in time. Idempotent.
     */
    @Override
    void close();

    /** Whether {@link #close()} had to kill a target that should have exited by itself. */
    boolean forcedAtClose();
}
