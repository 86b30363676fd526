package io.blockxfer.cli.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The CPU time this process has used, all threads together (Java threads and the native threads
 * of the backends' libraries, such as UCX's and NIXL's progress threads, which a
 * {@code ThreadMXBean} never sees). On Linux, with native access enabled (the {@code blockxfer}
 * script enables it), it is {@code clock_gettime(CLOCK_PROCESS_CPUTIME_ID)}, to the nanosecond;
 * elsewhere the platform's {@code OperatingSystemMXBean}, whose Linux implementation counts in
 * clock ticks (10 ms), too coarse for short points.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class CpuClock {

    private static final int CLOCK_PROCESS_CPUTIME_ID = 2;
    private static final @Nullable MethodHandle CLOCK_GETTIME = clockGettime();

    /** Null where the JDK's bean is not the com.sun.management one. */
    private final com.sun.management.@Nullable OperatingSystemMXBean os;

    private CpuClock(com.sun.management.@Nullable OperatingSystemMXBean os) {
        this.os = os;
    }

    /** The clock of this JVM. */
    public static CpuClock ofThisProcess() {
        return new CpuClock(ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os ? os : null);
    }

    /** Whether the CPU time of this process can be read here. */
    boolean available() {
        return nanos() >= 0;
    }

    /** CPU nanoseconds used so far, or -1 when unknown. */
    public long nanos() {
        if (CLOCK_GETTIME != null) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment ts = arena.allocate(16, 8);
                if ((int) CLOCK_GETTIME.invokeExact(CLOCK_PROCESS_CPUTIME_ID, ts) == 0) {
                    return ts.get(ValueLayout.JAVA_LONG, 0) * 1_000_000_000L + ts.get(ValueLayout.JAVA_LONG, 8);
                }
            } catch (Throwable e) {
                // fall back to the bean below
            }
        }
        return os == null ? -1 : os.getProcessCpuTime();
    }

    /** {@code int clock_gettime(clockid_t, struct timespec *)} on 64-bit Linux, or null. */
    // restricted methods: called only where this module has native access, checked first
    @SuppressWarnings("restricted")
    private static @Nullable MethodHandle clockGettime() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("aarch64"))
                || !CpuClock.class.getModule().isNativeAccessEnabled()) {
            return null;
        }
        try {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find("clock_gettime").map(f -> linker.downcallHandle(f,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS)))
                    .orElse(null);
        } catch (RuntimeException e) {
            return null;
        }
    }
}
