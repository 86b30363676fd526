package io.blockxfer.benchmarks;

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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of crossing into native code through the Foreign Function &amp; Memory API, the floor
 * under every call the NIXL binding makes.
 *
 * <p>{@link #ffmDowncallFloor} calls libc's {@code abs} (no system call) through a downcall
 * handle: what any FFM call costs on this JVM. The NIXL-specific benchmarks belong next to it, guarded by
 * {@link NixlGuard} (which fails the benchmark with NIXL's unavailability cause, and
 * {@link BenchmarksMain} leaves out every benchmark whose name contains {@code nixl} when NIXL is
 * unavailable). TODO(transport-nixl): add, against the binding's method handles,
 * <pre>{@code
 * @Benchmark public int nixlCheckXferState(NixlGuard nixl) { ... one nixl_capi_get_xfer_status ... }
 * @Benchmark public int nixlPostXfer(NixlGuard nixl)       { ... one nixl_capi_post_xfer_req ...   }
 * }</pre>
 * and compare each with the floor: the difference is NIXL's own work plus argument marshalling.
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

    /**
     * Fails a NIXL benchmark's trial, with the cause, when the {@code nixl} backend is unavailable.
     *
     * <p><b>Thread safety:</b> JMH state, one per benchmark thread.
     */
    @State(Scope.Thread)
    public static class NixlGuard {

        /** For JMH. */
        public NixlGuard() {
        }

        /** Checks that NIXL is available here. */
        @Setup(Level.Trial)
        public void check() {
            ProviderInfo nixl = Transports.providers().stream().filter(p -> p.name().equals("nixl")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no nixl backend on the class path"));
            if (!nixl.isAvailable()) {
                throw new IllegalStateException("nixl is unavailable: " + nixl.availability().cause());
            }
        }
    }
}
