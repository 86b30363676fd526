package io.blockxfer.benchmarks;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.CompletionHandler;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.ManagedTransport;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the transport layer itself costs per transfer, without a backend's thread hand-off: a
 * {@link ManagedTransport} over an engine whose transfers are terminal as soon as they are
 * submitted (it moves no bytes; it isolates ids, checks, tables, polls and instrumentation), one
 * {@code writeBlocks} plus one {@code poll(peer, handler)} per operation, on one thread.
 *
 * <p>Run it three ways to price the instrumentation: {@code -jvmArgsAppend
 * -Dblockxfer.jfr.disabled=true} (JFR events compiled out), default (events in, no recording),
 * and {@code -jvmArgsAppend -XX:StartFlightRecording:settings=default,settings=config/blockxfer.jfc}
 * (recording every transfer).
 *
 * <p><b>Thread safety:</b> JMH state, one per benchmark thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xms512m", "-Xmx512m"})
public class InstrumentationOverheadBenchmark {

    private static final String PEER = "peer";
    private final int[] local = {3};
    private final int[] remote = {5};
    private long reported;
    private final CompletionHandler handler = (id, ok) -> reported++;
    private ManagedTransport transport;

    /** For JMH. */
    public InstrumentationOverheadBenchmark() {
    }

    /** Opens the transport and registers the peer. */
    @Setup(Level.Trial)
    public void open() {
        TransportConfig config = TransportConfig.builder(RegionSpec.allocate(16, 4096)).agentName("overhead").build();
        transport = new ManagedTransport(new InstantEngine(config), config, EnumSet.noneOf(Capability.class));
        transport.addPeer(PEER, new PeerDescriptor("instant", "", 4096, 16, 4096, new byte[0]));
    }

    /** Closes the transport. */
    @TearDown(Level.Trial)
    public void close() {
        transport.close();
    }

    /** One submit and the poll that reports it. */
    @Benchmark
    public long submitAndPoll() {
        long id = transport.writeBlocks(PEER, local, remote);
        transport.poll(PEER, handler);
        return id + reported;
    }
}
