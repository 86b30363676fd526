package io.blockxfer.cli.internal;

import java.lang.management.ManagementFactory;
import org.jspecify.annotations.Nullable;

/**
 * The CPU time this process has used, all threads together, from the platform's
 * {@code OperatingSystemMXBean} (where the JDK offers it).
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
final class CpuClock {

    /** Null where the JDK's bean is not the com.sun.management one. */
    private final com.sun.management.@Nullable OperatingSystemMXBean os;

    private CpuClock(com.sun.management.@Nullable OperatingSystemMXBean os) {
        this.os = os;
    }

    /** The clock of this JVM. */
    static CpuClock ofThisProcess() {
        return new CpuClock(ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os ? os : null);
    }

    /** Whether the JDK reports process CPU time here. */
    boolean available() {
        return os != null && os.getProcessCpuTime() >= 0;
    }

    /** CPU nanoseconds used so far, or -1 when unknown. */
    long nanos() {
        return os == null ? -1 : os.getProcessCpuTime();
    }
}
