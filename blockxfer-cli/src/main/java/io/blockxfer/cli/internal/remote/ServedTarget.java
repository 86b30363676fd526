package io.blockxfer.cli.internal.remote;

import io.blockxfer.cli.internal.ArenaTransport;
import io.blockxfer.cli.internal.MemcpyLoop;
import io.blockxfer.cli.internal.NotificationCollector;
import io.blockxfer.cli.internal.NotifyTally;
import io.blockxfer.cli.internal.SlotPlan;
import io.blockxfer.cli.internal.TakerStyle;
import io.blockxfer.cli.internal.Tuning;
import io.blockxfer.cli.internal.WireProbe;
import io.blockxfer.tck.BlockPattern;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.spi.TransportProvider;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * One target a bench server opened for an initiator: the transport (its region is what the
 * initiator's transfers land in), and a stand-in of the region's size for the memcpy ceiling, both
 * freed by {@link #close()}; once the initiator arms it ({@code bench --notify}), a
 * {@link NotificationCollector} that takes the transport's notifications and times them by this
 * host's clock, corrected by the offset the initiator estimated.
 *
 * <p><b>Thread safety:</b> not thread-safe; used by its session's thread.
 */
final class ServedTarget implements AutoCloseable {

    private static final long MEMCPY_SLICE_NANOS = 100_000_000L;

    private final ArenaTransport held;
    private final long bytes;
    private final boolean notifications;
    private @Nullable NotificationCollector collector;

    private ServedTarget(ArenaTransport held, long bytes, boolean notifications) {
        this.held = held;
        this.bytes = bytes;
        this.notifications = notifications;
    }

    /** Opens a target of {@code numBlocks} blocks of {@code blockBytes}, its region and stand-in touched. */
    static ServedTarget open(TransportProvider provider, int numBlocks, long blockBytes, Tuning tuning, String agent) {
        ArenaTransport held = ArenaTransport.open(provider, numBlocks, blockBytes, tuning, agent);
        try {
            held.transport().region().segment().fill((byte) 2);
            held.standIn().fill((byte) 3);
            return new ServedTarget(held, numBlocks * blockBytes,
                    provider.capabilities().contains(Capability.NOTIFICATIONS));
        } catch (RuntimeException | Error e) {
            held.close();
            throw e;
        }
    }

    DataTransport transport() {
        return held.transport();
    }

    /** Region and stand-in together. */
    long bytesHeld() {
        return 2 * bytes;
    }

    int numBlocks() {
        return transport().region().numBlocks();
    }

    long blockBytes() {
        return transport().region().blockLength();
    }

    void fill(int block, long seed) {
        BlockPattern.fill(transport().region().block(block), seed);
    }

    long mismatch(int block, long seed) {
        return BlockPattern.firstMismatch(transport().region().block(block), seed);
    }

    /**
     * Copies the plan's blocks between the stand-in (as the initiator's side) and the region for
     * about {@code nanos}, in slices, stopping early when {@code stopping} says so.
     */
    WireProbe.Rate memcpy(TransferOp op, SlotPlan plan, long nanos, BooleanSupplier stopping) {
        MemcpyLoop loop = new MemcpyLoop(held.standIn(), transport().region().segment(), op == TransferOp.WRITE, plan,
                blockBytes());
        long left = nanos;
        do {
            long slice = Math.min(left, MEMCPY_SLICE_NANOS);
            loop.run(slice);
            left -= slice;
        } while (left > 0 && !stopping.getAsBoolean());
        return new WireProbe.Rate(loop.bytes(), loop.elapsedNanos());
    }

    /**
     * Counts and times from now on the notifications stamped with {@code tag}, whose submit times
     * read by this host's clock are {@code submit + offsetNanos}.
     *
     * @throws IllegalStateException when the backend does not carry notifications
     * @throws IllegalArgumentException for the unmeasured tag
     */
    void arm(long tag, long offsetNanos, TakerStyle style) {
        NotificationCollector c = collector;
        if (c == null) {
            if (!notifications) {
                throw new IllegalStateException(transport().backendName() + " does not carry notifications on this"
                        + " server");
            }
            c = NotificationCollector.start(transport());
            collector = c;
        }
        c.arm(tag, offsetNanos, style);
    }

    /** What arrived of the armed run, once {@code expected} did or {@code limit} passed. */
    NotifyTally disarm(long expected, Duration limit) {
        NotificationCollector c = collector;
        if (c == null) {
            throw new IllegalStateException("no notifications were armed on this target");
        }
        return c.disarm(expected, limit);
    }

    @Override
    public void close() {
        try {
            if (collector != null) {
                collector.close();
            }
        } finally {
            held.close();
        }
    }
}
