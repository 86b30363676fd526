package io.blockxfer.transport.internal.memory;

import io.blockxfer.transport.InsufficientMemoryException;
import java.util.Locale;

/**
 * Refuses a backend-allocated region this host cannot hold, before anything is mapped: the
 * region plus a reserve of {@value #RESERVE_BYTES} bytes must fit in {@code MemAvailable + SwapFree},
 * in the commit limit left under {@code vm.overcommit_memory = 2}, and in the cgroup's
 * {@code memory.max} left ({@link HostMemory}). Every backend calls it before it allocates a region;
 * a backend with its own placement limits (UCX's shared memory) checks those after it.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class MemoryBudget {

    /** What stays untouched for everything else on the host. */
    public static final long RESERVE_BYTES = 64L << 20;

    private MemoryBudget() {
    }

    /**
     * Refuses {@code bytes} that this host cannot hold now.
     *
     * @throws InsufficientMemoryException naming the size and what the host has
     */
    public static void check(long bytes) {
        check(bytes, HostMemory.read());
    }

    /** {@link #check(long)} against {@code host}. */
    public static void check(long bytes, HostMemory host) {
        long need = saturatedAdd(bytes, RESERVE_BYTES);
        long memory = saturatedAdd(host.memAvailable(), host.swapFree());
        if (host.memAvailable() != Long.MAX_VALUE && need > memory) {
            throw refusal(bytes, memory, "this host has " + describe(host.memAvailable()) + " of memory available and "
                    + describe(host.swapFree()) + " of swap free (/proc/meminfo), and keeps " + describe(RESERVE_BYTES)
                    + " in reserve");
        }
        if (host.overcommitMode() == 2 && need > host.commitLeft()) {
            long left = Math.max(0, host.commitLeft());
            throw refusal(bytes, left, "vm.overcommit_memory is 2 and the commit limit leaves " + describe(left));
        }
        if (need > host.cgroupLeft()) {
            throw refusal(bytes, host.cgroupLeft(), "the cgroup's memory.max leaves " + describe(host.cgroupLeft()));
        }
    }

    /** An {@link InsufficientMemoryException} for a region of {@code bytes}, saying {@code why}. */
    public static InsufficientMemoryException refusal(long bytes, long available, String why) {
        return new InsufficientMemoryException("cannot allocate a region of " + describe(bytes) + ": " + why, bytes,
                available);
    }

    /** {@code "1.5 GiB"} or {@code "64.0 MiB"}. */
    public static String describe(long bytes) {
        if (bytes >= 1L << 30) {
            return String.format(Locale.ROOT, "%.1f GiB", bytes / (double) (1L << 30));
        }
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1L << 20));
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }
}
