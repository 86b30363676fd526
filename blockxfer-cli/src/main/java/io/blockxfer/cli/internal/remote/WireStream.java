package io.blockxfer.cli.internal.remote;

import io.blockxfer.cli.internal.SlotPlan;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The TCP ceiling's data path: the blocks of a {@link SlotPlan}, slot after slot, written straight
 * from one host's region and read straight into the other's (buffers are views of the regions, so
 * nothing is copied on the way in or out of the socket). The sender stops at a time limit and
 * half-closes; the receiver reads until the end of the stream and answers with the 8-byte count of
 * what it received. A connection that stops making progress is closed by a deadline, so a peer
 * that vanished cannot hold a session for ever.
 *
 * <p><b>Thread safety:</b> stateless; one thread per connection.
 */
final class WireStream {

    /** The longest a buffer view may be; larger blocks are streamed in pieces. */
    private static final long MAX_VIEW = 1L << 30;
    /** Slack on top of the stream's own time before its connection is closed by force. */
    private static final long DEADLINE_SLACK_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final ScheduledExecutorService DEADLINES = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("bench-stream-deadline").factory());

    private WireStream() {
    }

    /**
     * Buffer views of the blocks of every slot of {@code plan} in {@code region}: the local
     * indices when {@code local}, else the remote ones.
     */
    static ByteBuffer[][] views(MemorySegment region, SlotPlan plan, boolean local, long blockBytes) {
        ByteBuffer[][] slots = new ByteBuffer[plan.window()][];
        for (int s = 0; s < plan.window(); s++) {
            int[] blocks = local ? plan.local(s) : plan.remote(s);
            List<ByteBuffer> views = new ArrayList<>();
            for (int b : blocks) {
                for (long off = 0; off < blockBytes; off += MAX_VIEW) {
                    views.add(region.asSlice(b * blockBytes + off, Math.min(MAX_VIEW, blockBytes - off)).asByteBuffer());
                }
            }
            slots[s] = views.toArray(ByteBuffer[]::new);
        }
        return slots;
    }

    /**
     * Sends whole slots until {@code nanos} have passed (at least one), half-closes, and waits for
     * the receiver's count.
     *
     * @return the bytes the receiver says it received
     */
    static long send(SocketChannel channel, ByteBuffer[][] slots, long nanos) throws IOException {
        ScheduledFuture<?> deadline = closeLater(channel, nanos);
        try {
            long end = System.nanoTime() + nanos;
            int s = 0;
            do {
                ByteBuffer[] slot = slots[s];
                for (ByteBuffer b : slot) {
                    b.clear();
                }
                while (slot[slot.length - 1].hasRemaining()) {
                    channel.write(slot);
                }
                s = s + 1 == slots.length ? 0 : s + 1;
            } while (System.nanoTime() - end < 0);
            channel.shutdownOutput();
            ByteBuffer count = ByteBuffer.allocate(Long.BYTES);
            while (count.hasRemaining()) {
                if (channel.read(count) < 0) {
                    throw new ProtocolException("the receiver closed the stream without its count");
                }
            }
            return count.flip().getLong();
        } finally {
            deadline.cancel(false);
        }
    }

    /**
     * Receives into the slots in turn until the sender half-closes, then answers with the count.
     *
     * @param maxNanos how long the sender was asked to send; the connection is closed by force
     *     a minute after that
     * @return the bytes received
     */
    static long receive(SocketChannel channel, ByteBuffer[][] slots, long maxNanos) throws IOException {
        ScheduledFuture<?> deadline = closeLater(channel, maxNanos);
        try {
            long total = 0;
            int s = 0;
            outer:
            while (true) {
                for (ByteBuffer b : slots[s]) {
                    b.clear();
                }
                ByteBuffer[] slot = slots[s];
                while (slot[slot.length - 1].hasRemaining()) {
                    long n = channel.read(slot);
                    if (n < 0) {
                        break outer;
                    }
                    total += n;
                }
                s = s + 1 == slots.length ? 0 : s + 1;
            }
            ByteBuffer count = ByteBuffer.allocate(Long.BYTES).putLong(0, total);
            while (count.hasRemaining()) {
                channel.write(count);
            }
            return total;
        } finally {
            deadline.cancel(false);
        }
    }

    private static ScheduledFuture<?> closeLater(SocketChannel channel, long nanos) {
        return DEADLINES.schedule(() -> {
            try {
                channel.close();
            } catch (IOException ignored) {
                // closing is all we wanted
            }
        }, nanos + DEADLINE_SLACK_NANOS, TimeUnit.NANOSECONDS);
    }
}
