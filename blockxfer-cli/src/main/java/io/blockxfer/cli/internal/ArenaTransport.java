package io.blockxfer.cli.internal;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.spi.TransportProvider;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A transport whose region lives in a shared arena of its own, with a stand-in of the region's
 * size beside it (the other side of the memcpy ceiling); {@link #close()} closes the transport and
 * then frees both. The one side of a {@link PeerPair} whose other side is elsewhere, and a bench
 * server's target.
 *
 * <p><b>Thread safety:</b> the transport is thread-safe; {@link #close()} is idempotent, for one
 * thread.
 */
public final class ArenaTransport implements AutoCloseable {

    private final Arena arena;
    private final DataTransport transport;
    private final MemorySegment standIn;

    private ArenaTransport(Arena arena, DataTransport transport, MemorySegment standIn) {
        this.arena = arena;
        this.transport = transport;
        this.standIn = standIn;
    }

    /**
     * Opens a transport of {@code numBlocks} blocks of {@code blockBytes} named {@code agent}, and its
     * stand-in; on failure nothing stays open.
     */
    public static ArenaTransport open(TransportProvider provider, int numBlocks, long blockBytes, Tuning tuning,
            String agent) {
        Arena arena = Arena.ofShared();
        DataTransport transport = null;
        try {
            transport = provider.open(BenchConfigs.config(provider, arena, numBlocks, blockBytes, agent, tuning));
            return new ArenaTransport(arena, transport, arena.allocate(numBlocks * blockBytes, 4096));
        } catch (RuntimeException | Error e) {
            try {
                if (transport != null) {
                    transport.close();
                }
            } finally {
                arena.close();
            }
            throw e;
        }
    }

    /** The transport. */
    public DataTransport transport() {
        return transport;
    }

    /** Memory of the region's size in this process, not registered with any transport. */
    public MemorySegment standIn() {
        return standIn;
    }

    /** Whether {@link #close()} has not run yet. */
    public boolean isOpen() {
        return arena.scope().isAlive();
    }

    /** Closes the transport, then frees its region and the stand-in; idempotent. */
    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            try {
                transport.close();
            } finally {
                arena.close();
            }
        }
    }
}
