package io.blockxfer.benchmarks;

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
 * The overhead of one small transfer: {@code writeBlocks} of one block, then
 * {@code poll(peer, handler)} until that transfer is reported (or, in {@link #writeOneBlockAndWait},
 * waiting for it with {@code poll(peer, handler, limit)}; in {@link #writeOneBlockAndJoin},
 * {@code writeBlocksAsync} and {@code join()} of its future), per backend ({@code backend} is
 * filled with every available backend by {@link BenchmarksMain}; loopback always). With
 * {@code -prof gc}, {@code gc.alloc.rate.norm} is the allocation per transfer (target: 0).
 *
 * <p><b>Thread safety:</b> JMH state, one per benchmark thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xms512m", "-Xmx512m"})
public class SubmitPollBenchmark {

    /** The backend's provider name. */
    @Param({"loopback"})
    public String backend;

    /** The size of the one block moved. */
    @Param({"4096"})
    public long blockBytes;

    private static final int BLOCKS = 16;

    private Pair pair;
    private final Completion completion = new Completion();
    private final int[][] local = new int[BLOCKS][];
    private final int[][] remote = new int[BLOCKS][];
    private int next;

    /** For JMH. */
    public SubmitPollBenchmark() {
    }

    /** Opens the pair and the index arrays (distinct blocks, reused). */
    @Setup(Level.Trial)
    public void open() {
        pair = Pair.open(backend, BLOCKS, blockBytes);
        for (int i = 0; i < BLOCKS; i++) {
            local[i] = new int[] {i};
            remote[i] = new int[] {BLOCKS - 1 - i};
        }
    }

    /** Closes the pair. */
    @TearDown(Level.Trial)
    public void close() {
        pair.close();
    }

    /** Submit one one-block WRITE and poll until it is reported. */
    @Benchmark
    public long writeOneBlockAndPoll() {
        int i = next;
        next = i + 1 == BLOCKS ? 0 : i + 1;
        long id = pair.initiator.writeBlocks(Pair.PEER, local[i], remote[i]);
        completion.await(pair.initiator, Pair.PEER, id, false);
        return id;
    }

    /** Submit one one-block WRITE and wait ({@code poll(peer, handler, limit)}) until it is reported. */
    @Benchmark
    public long writeOneBlockAndWait() {
        int i = next;
        next = i + 1 == BLOCKS ? 0 : i + 1;
        long id = pair.initiator.writeBlocks(Pair.PEER, local[i], remote[i]);
        completion.awaitBlocking(pair.initiator, Pair.PEER, id);
        return id;
    }

    /** Submit one one-block WRITE asynchronously and {@code join()} its future. */
    @Benchmark
    public long writeOneBlockAndJoin() {
        int i = next;
        next = i + 1 == BLOCKS ? 0 : i + 1;
        io.blockxfer.transport.TransferFuture f = pair.initiator.writeBlocksAsync(Pair.PEER, local[i], remote[i]);
        f.join();
        return f.transferId();
    }
}
