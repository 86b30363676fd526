package io.blockxfer.ucx.internal;

import io.blockxfer.ucx.InsufficientMemoryException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Whether this host can hold a region UCX is asked to allocate, decided before UCX maps anything.
 * UCX tries its allocators in the order {@code UCX_ALLOC_PRIO} gives ({@code md:sysv, md:posix,
 * thp, mmap, heap} by default); a posix segment is first filled with zeros, page by page, in
 * {@code /dev/shm}, so a region larger than the memory there is gets the process killed by the
 * kernel's out-of-memory killer halfway, leaving a file that nobody removes. So:
 * <ul>
 *   <li>the machine must hold it: {@code MemAvailable + SwapFree} from {@code /proc/meminfo} (with
 *       {@code vm.overcommit_memory = 2}, the commit limit left), and the cgroup's
 *       {@code memory.max} left, minus a reserve of {@value #RESERVE_BYTES} bytes;</li>
 *   <li>and if SysV shared memory cannot take it ({@code kernel.shmmax}, {@code kernel.shmall} left)
 *       so that UCX goes on to a posix segment, {@code /dev/shm} must have the room.</li>
 * </ul>
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class MemoryBudget {

    /** What stays untouched for everything else on the host. */
    static final long RESERVE_BYTES = 64L << 20;
    private static final long PAGE = 4096;

    private MemoryBudget() {
    }

    /**
     * Refuses {@code bytes} of UCX-allocated memory that this host cannot hold.
     *
     * @param allocOrder UCX's allocation order ({@code UCX_ALLOC_PRIO}), or null for UCX's default
     * @throws InsufficientMemoryException naming what is missing
     */
    static void check(long bytes, String allocOrder) {
        check(bytes, allocOrder, Snapshot.read());
    }

    /** {@link #check(long, String)} against {@code s}. */
    static void check(long bytes, String allocOrder, Snapshot s) {
        String machine = s.machineShortfall(bytes);
        if (machine != null) {
            throw new InsufficientMemoryException("cannot allocate a region of " + describe(bytes) + ": " + machine);
        }
        List<String> order = List.of((allocOrder == null ? "md:sysv,md:posix,thp,mmap,heap" : allocOrder)
                .toLowerCase(Locale.ROOT).replace(" ", "").split(","));
        for (String method : order) {
            if (method.equals("md:sysv") && s.sysvCanHold(bytes)) {
                return;
            }
            if (method.equals("md:posix")) {
                if (s.shmFreeBytes >= bytes + RESERVE_BYTES) {
                    return;
                }
                throw new InsufficientMemoryException("cannot allocate a region of " + describe(bytes)
                        + ": UCX would put it in a posix segment in /dev/shm, which has " + describe(s.shmFreeBytes)
                        + " free" + (order.contains("md:sysv") ? " (SysV shared memory cannot take it: kernel.shmmax "
                        + describe(s.shmmax) + ", kernel.shmall leaves " + describe(s.shmallLeftBytes()) + ")" : ""));
            }
            if (method.equals("thp") || method.equals("mmap") || method.equals("heap")) {
                return;
            }
        }
    }

    static String describe(long bytes) {
        if (bytes >= 1L << 30) {
            return String.format(Locale.ROOT, "%.1f GiB", bytes / (double) (1L << 30));
        }
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1L << 20));
    }

    /** What the host has now; a missing source counts as unlimited (it is not this host's limit). */
    record Snapshot(long memAvailable, long swapFree, int overcommitMode, long commitLeft, long cgroupLeft,
            long shmFreeBytes, long shmmax, long shmallPages, long shmUsedPages) {

        static Snapshot read() {
            long available = Long.MAX_VALUE;
            long swap = 0;
            long commitLimit = Long.MAX_VALUE;
            long committed = 0;
            try {
                for (String line : Files.readAllLines(Path.of("/proc/meminfo"), StandardCharsets.US_ASCII)) {
                    String[] f = line.split("\\s+");
                    if (f.length < 2) {
                        continue;
                    }
                    long kib = Long.parseLong(f[1]) * 1024;
                    switch (f[0]) {
                        case "MemAvailable:" -> available = kib;
                        case "SwapFree:" -> swap = kib;
                        case "CommitLimit:" -> commitLimit = kib;
                        case "Committed_AS:" -> committed = kib;
                        default -> {
                            // not needed
                        }
                    }
                }
            } catch (IOException | NumberFormatException e) {
                // no /proc/meminfo: nothing to go by
            }
            int mode = (int) number(Path.of("/proc/sys/vm/overcommit_memory"), 0);
            long cgroupLeft = Long.MAX_VALUE;
            long max = number(Path.of("/sys/fs/cgroup/memory.max"), Long.MAX_VALUE);
            if (max != Long.MAX_VALUE) {
                cgroupLeft = Math.max(0, max - number(Path.of("/sys/fs/cgroup/memory.current"), 0));
            }
            long shmFree = Long.MAX_VALUE;
            try {
                shmFree = Files.getFileStore(Path.of("/dev/shm")).getUsableSpace();
            } catch (IOException | RuntimeException e) {
                shmFree = 0; // no /dev/shm: UCX's posix segments cannot be had
            }
            long used = 0;
            try {
                List<String> lines = Files.readAllLines(Path.of("/proc/sysvipc/shm"), StandardCharsets.US_ASCII);
                for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
                    String[] f = line.trim().split("\\s+");
                    if (f.length > 3) {
                        used += (Long.parseLong(f[3]) + PAGE - 1) / PAGE;
                    }
                }
            } catch (IOException | NumberFormatException e) {
                // unknown: count nothing used
            }
            return new Snapshot(available, swap, mode, commitLimit == Long.MAX_VALUE ? Long.MAX_VALUE
                    : commitLimit - committed, cgroupLeft, shmFree,
                    number(Path.of("/proc/sys/kernel/shmmax"), Long.MAX_VALUE),
                    number(Path.of("/proc/sys/kernel/shmall"), Long.MAX_VALUE), used);
        }

        /** Why the machine cannot hold {@code bytes}, or null. */
        String machineShortfall(long bytes) {
            long need = bytes > Long.MAX_VALUE - RESERVE_BYTES ? Long.MAX_VALUE : bytes + RESERVE_BYTES;
            if (memAvailable != Long.MAX_VALUE && need > satAdd(memAvailable, swapFree)) {
                return "this host has " + describe(memAvailable) + " of memory available and " + describe(swapFree)
                        + " of swap free (/proc/meminfo), and keeps " + describe(RESERVE_BYTES) + " in reserve";
            }
            if (overcommitMode == 2 && need > commitLeft) {
                return "vm.overcommit_memory is 2 and the commit limit leaves " + describe(Math.max(0, commitLeft));
            }
            if (need > cgroupLeft) {
                return "the cgroup's memory.max leaves " + describe(cgroupLeft);
            }
            return null;
        }

        boolean sysvCanHold(long bytes) {
            return bytes <= shmmax && (bytes + PAGE - 1) / PAGE <= shmallPages - shmUsedPages;
        }

        long shmallLeftBytes() {
            long pages = shmallPages - shmUsedPages;
            return pages > Long.MAX_VALUE / PAGE ? Long.MAX_VALUE : Math.max(0, pages) * PAGE;
        }

        private static long satAdd(long a, long b) {
            long r = a + b;
            return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
        }
    }

    /** The first number in a one-line file (e.g. {@code max} counts as absent), or {@code absent}. */
    private static long number(Path file, long absent) {
        try {
            String s = Files.readString(file, StandardCharsets.US_ASCII).trim();
            return Long.parseUnsignedLong(s) < 0 ? Long.MAX_VALUE : Long.parseLong(s);
        } catch (IOException | NumberFormatException e) {
            return absent;
        }
    }
}
