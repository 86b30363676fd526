package io.blockxfer.multihost;

/**
 * Where a peer program's events go: the control channel in a container, a list in a unit test.
 * Lines are {@code E <KIND> key=value ...}; see {@link PeerMain} for the kinds.
 *
 * <p><b>Thread safety:</b> implementations must be thread-safe; sessions emit from their own threads.
 */
@FunctionalInterface
public interface EventSink {

    /** Emits one event line (no line break). */
    void emit(String line);
}
