package io.blockxfer.benchmarks;

import java.lang.foreign.MemorySegment;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * WRITE throughput of a batch of blocks through a backend ({@link #transport}) beside
 * {@link MemorySegment#copy} of exactly the same block pairs ({@link #memcpy}), in one run so the
 * ratio is read off one table. Local blocks are in order and remote blocks a fixed permutation,
 * so no two neighbours can be coalesced. The {@code bytes} secondary score is bytes per second:
 * divide by 10^9 for GB/s.
 *
 * <p><b>Thread safety:</b> JMH state, one per benchmark thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xms512m", "-Xmx512m"})
public class WriteThroughputBenchmark {

    /** The backend's provider name. */
    @Param({"loopback"})
    public String backend;

    /** The block size: 64 KiB, 256 KiB and 2 MiB. */
    @Param({"65536", "262144", "2097152"})
    public long blockBytes;

    /** Blocks per transfer. */
    @Param({"64"})
    public int batch;

    private Pair pair;
    private int[] local;
    private int[] remote;
    private MemorySegment source;
    private MemorySegment destination;
    private final Completion completion = new Completion();

    /** For JMH. */
    public WriteThroughputBenchmark() {
    }

    /**
     * Bytes moved, reported by JMH as a rate.
     *
     * <p><b>Thread safety:</b> JMH state, one per benchmark thread.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Bytes {
        /** Bytes moved in this iteration. */
        public long bytes;

        /** For JMH. */
        public Bytes() {
        }

        /** Starts the iteration's count. */
        @Setup(Level.Iteration)
        public void clear() {
            bytes = 0;
        }
    }

    /** Opens the pair of {@code batch} blocks a side and the index arrays. */
    @Setup(Level.Trial)
    public void open() {
        pair = Pair.open(backend, batch, blockBytes);
        local = new int[batch];
        remote = new int[batch];
        for (int i = 0; i < batch; i++) {
            local[i] = i;
            remote[i] = i;
        }
        Random random = new Random(42);
        do {
            for (int i = batch - 1; i > 0; i--) {
                int j = random.nextInt(i + 1);
                int t = remote[i];
                remote[i] = remote[j];
                remote[j] = t;
            }
        } while (batch > 2 && hasRun(remote));
        source = pair.initiator.region().segment();
        destination = pair.target.region().segment();
    }

    private static boolean hasRun(int[] a) {
        for (int i = 1; i < a.length; i++) {
            if (a[i] == a[i - 1] + 1) {
                return true;
            }
        }
        return false;
    }

    /** Closes the pair. */
    @TearDown(Level.Trial)
    public void close() {
        pair.close();
    }

    /** One WRITE of the batch, polled until it is reported. */
    @Benchmark
    public long transport(Bytes moved) {
        long id = pair.initiator.writeBlocks(Pair.PEER, local, remote);
        completion.await(pair.initiator, Pair.PEER, id, true);
        moved.bytes += batch * blockBytes;
        return id;
    }

    /** The same block pairs, copied with {@link MemorySegment#copy} on this thread. */
    @Benchmark
    public void memcpy(Bytes moved) {
        long b = blockBytes;
        for (int i = 0; i < local.length; i++) {
            MemorySegment.copy(source, local[i] * b, destination, remote[i] * b, b);
        }
        moved.bytes += batch * b;
    }
}
