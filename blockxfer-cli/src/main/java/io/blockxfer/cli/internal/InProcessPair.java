package io.blockxfer.cli.internal;

import io.blockxfer.tck.BlockPattern;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.spi.TransportProvider;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Initiator and target opened by one provider in this process.
 *
 * <p><b>Thread safety:</b> see {@link PeerPair}.
 */
final class InProcessPair implements PeerPair {

    private final Arena arena;
    private final DataTransport initiator;
    private final DataTransport target;
    private @Nullable NotificationCollector collector;

    private InProcessPair(Arena arena, DataTransport initiator, DataTransport target) {
        this.arena = arena;
        this.initiator = initiator;
        this.target = target;
    }

    /** Opens two transports of {@code numBlocks} blocks of {@code blockBytes} and registers the target. */
    static InProcessPair open(TransportProvider provider, int numBlocks, long blockBytes, Tuning tuning) {
        Arena arena = Arena.ofShared();
        DataTransport initiator = null;
        DataTransport target = null;
        try {
            initiator = provider.open(BenchConfigs.config(provider, arena, numBlocks, blockBytes, "bench-initiator",
                    tuning));
            target = provider.open(BenchConfigs.config(provider, arena, numBlocks, blockBytes, "bench-target",
                    tuning));
            PeerDescriptor theirs = target.localDescriptor();
            // with a key, the descriptor takes the path it takes between hosts: bytes, then authenticated
            initiator.addPeer(PEER, tuning.keyRing().map(ring -> PeerDescriptor.decode(theirs.encode(), ring))
                    .orElse(theirs));
            return new InProcessPair(arena, initiator, target);
        } catch (RuntimeException | Error e) {
            closeAll(initiator, target, arena);
            throw e;
        }
    }

    private static void closeAll(@Nullable DataTransport initiator, @Nullable DataTransport target, Arena arena) {
        try {
            if (initiator != null) {
                initiator.close();
            }
        } finally {
            try {
                if (target != null) {
                    target.close();
                }
            } finally {
                arena.close();
            }
        }
    }

    @Override
    public DataTransport initiator() {
        return initiator;
    }

    @Override
    public MemorySegment baselineTarget() {
        return target.region().segment();
    }

    @Override
    public void fillTarget(int block, long seed) {
        BlockPattern.fill(target.region().block(block), seed);
    }

    @Override
    public long targetMismatch(int block, long seed) {
        return BlockPattern.firstMismatch(target.region().block(block), seed);
    }

    @Override
    public TargetNotifications notifications() {
        return new TargetNotifications() {
            @Override
            public void arm(long tag, TakerStyle style) {
                collector().arm(tag, 0, style);
            }

            @Override
            public NotifyTally disarm(long expected, Duration limit) {
                return collector().disarm(expected, limit);
            }

            @Override
            public long clockErrorNanos() {
                return 0; // one process, one clock
            }
        };
    }

    private NotificationCollector collector() {
        NotificationCollector c = collector;
        if (c == null) {
            c = NotificationCollector.start(target);
            collector = c;
        }
        return c;
    }

    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            try {
                if (collector != null) {
                    collector.close();
                }
            } finally {
                closeAll(initiator, target, arena);
            }
        }
    }
}
