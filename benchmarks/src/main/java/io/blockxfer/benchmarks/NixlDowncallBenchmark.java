package io.blockxfer.benchmarks;

import io.blockxfer.nixl.internal.NixlDowncallProbe;
import io.blockxfer.transport.ProviderInfo;
import io.blockxfer.transport.Transports;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
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
 * The cost of crossing into native code through the Foreign Function &amp; Memory API, the floor
 * under every call the NIXL binding makes.
 *
 * <p>{@link #ffmDowncallFloor} calls libc's {@code abs} (no system call) through a downcall
 * handle: what any FFM call costs on this JVM. The NIXL benchmarks call the binding's own method
 * handles on a real agent ({@code NixlDowncallProbe}): {@link #nixlIsStub} (the cheapest NIXL
 * function), {@link #nixlCheckXferState} (one {@code nixl_capi_get_xfer_status} of a finished
 * request: what every poll pays per transfer) and {@link #nixlPostXfer} (one post of a 4 KiB
 * local transfer, to completion). Compared with the floor, the difference is NIXL's own work plus
 * argument marshalling. {@link BenchmarksMain} leaves them out when NIXL is unavailable, and
 * {@link NixlProbe} fails them with the cause.
 *
 * <p><b>Thread safety:</b> JMH state, one per benchmark thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class NixlDowncallBenchmark {

    private MethodHandle abs;
    private int argument = -42;

    /** For JMH. */
    public NixlDowncallBenchmark() {
    }

    /** Links libc's {@code abs}. */
    @SuppressWarnings("restricted")
    @Setup(Level.Trial)
    public void link() {
        Linker linker = Linker.nativeLinker();
        abs = linker.downcallHandle(linker.defaultLookup().find("abs").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    }

    /** One FFM downcall that does next to nothing natively. */
    @Benchmark
    public int ffmDowncallFloor() throws Throwable {
        return (int) abs.invokeExact(argument);
    }

    /** {@code nixl_capi_is_stub}: the cheapest call into NIXL. */
    @Benchmark
    public boolean nixlIsStub(NixlProbe nixl) {
        return nixl.probe.isStub();
    }

    /** {@code nixl_capi_get_xfer_status} of a finished request, as each poll does per transfer. */
    @Benchmark
    public int nixlCheckXferState(NixlProbe nixl) {
        return nixl.probe.statusOfFinishedRequest();
    }

    /** {@code nixl_capi_post_xfer_req} of a 4 KiB local transfer, polled to completion. */
    @Benchmark
    public int nixlPostXfer(NixlProbe nixl) {
        return nixl.probe.repost();
    }

    /**
     * A NIXL agent with a finished request to call the binding on; fails the trial with the cause
     * when the {@code nixl} backend is unavailable.
     *
     * <p><b>Thread safety:</b> JMH state, one per benchmark thread.
     */
    @State(Scope.Thread)
    public static class NixlProbe {
        NixlDowncallProbe probe;

        /** For JMH. */
        public NixlProbe() {
        }

        /** Checks that NIXL is available here and opens the probe. */
        @Setup(Level.Trial)
        public void open() {
            ProviderInfo nixl = Transports.providers().stream().filter(p -> p.name().equals("nixl")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no nixl backend on the class path"));
            if (!nixl.isAvailable()) {
                throw new IllegalStateException("nixl is unavailable: " + nixl.availability().cause());
            }
            probe = NixlDowncallProbe.open();
        }

        /** Frees the agent. */
        @TearDown(Level.Trial)
        public void close() {
            probe.close();
        }
    }
}
