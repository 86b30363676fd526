package io.blockxfer.benchmarks;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.NotificationHandler;
import io.blockxfer.transport.NotificationStats;
import io.blockxfer.transport.Transports;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a notification adds to one small transfer, end to end in one thread: {@code writeBlocks} of
 * one 4 KiB block (with a 16-byte notification, {@code notify=true}, or without), {@code poll(peer,
 * handler)} until it is reported, then one {@code pollNotifications(handler)} on the target, in
 * both variants, which takes the notification (this one's or the previous transfer's) and keeps the
 * target's queue short. The difference of the two is the sender's framing and the backend's
 * message, and the target's decoding, checks, queueing and delivery. {@code notifyingBackend} is
 * filled with every available backend that carries notifications by {@link BenchmarksMain}
 * (loopback always). The target must have received every notification sent: a backend that drops
 * them cannot post a fast score.
 *
 * <p><b>Thread safety:</b> JMH state, one per benchmark thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xms512m", "-Xmx512m"})
public class NotificationBenchmark {

    /** A backend that declares {@link Capability#NOTIFICATIONS}. */
    @Param({"loopback"})
    public String notifyingBackend;

    /** Whether each transfer carries a notification. */
    @Param({"false", "true"})
    public boolean notify;

    private static final int BLOCKS = 16;
    private static final long BLOCK_BYTES = 4096;

    private Pair pair;
    private final Completion completion = new Completion();
    private final int[][] local = new int[BLOCKS][];
    private final int[][] remote = new int[BLOCKS][];
    private final byte[] payload = new byte[16];
    private long received;
    private final NotificationHandler drain = n -> received++;
    private int next;

    /** For JMH. */
    public NotificationBenchmark() {
    }

    /**
     * Opens the pair and the index arrays (distinct blocks, reused).
     *
     * @throws IllegalStateException if the backend does not carry notifications
     */
    @Setup(Level.Trial)
    public void open() {
        if (!Transports.select(notifyingBackend, getClass().getClassLoader()).capabilities()
                .contains(Capability.NOTIFICATIONS)) {
            throw new IllegalStateException(notifyingBackend + " does not carry notifications (it lacks "
                    + Capability.NOTIFICATIONS + ")");
        }
        pair = Pair.open(notifyingBackend, BLOCKS, BLOCK_BYTES);
        for (int i = 0; i < BLOCKS; i++) {
            local[i] = new int[] {i};
            remote[i] = new int[] {BLOCKS - 1 - i};
        }
    }

    /** Checks that every notification sent reached the target, then closes the pair. */
    @TearDown(Level.Trial)
    public void close() throws InterruptedException {
        try {
            if (notify) {
                NotificationStats sent = pair.initiator.notificationStats();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (received < sent.sent() && System.nanoTime() < deadline) {
                    pair.target.pollNotifications(drain, 100, TimeUnit.MILLISECONDS);
                }
                NotificationStats target = pair.target.notificationStats();
                if (received != sent.sent() || target.dropped() > 0 || target.refused() > 0) {
                    throw new IllegalStateException(notifyingBackend + ": " + sent.sent() + " notifications sent, "
                            + received + " taken by the target (" + target + ")");
                }
            }
        } finally {
            pair.close();
        }
    }

    /** One one-block WRITE, polled until reported, then one poll of the target's notifications. */
    @Benchmark
    public long writeOneBlockAndPoll() {
        int i = next;
        next = i + 1 == BLOCKS ? 0 : i + 1;
        payload[0] = (byte) i;
        long id = notify ? pair.initiator.writeBlocks(Pair.PEER, local[i], remote[i], payload)
                : pair.initiator.writeBlocks(Pair.PEER, local[i], remote[i]);
        completion.await(pair.initiator, Pair.PEER, id, false);
        pair.target.pollNotifications(drain);
        return id;
    }
}
