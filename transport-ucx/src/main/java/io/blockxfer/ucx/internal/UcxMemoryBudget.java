package io.blockxfer.ucx.internal;

import io.blockxfer.transport.InsufficientMemoryException;
import io.blockxfer.transport.internal.memory.HostMemory;
import io.blockxfer.transport.internal.memory.MemoryBudget;
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
 *   <li>the machine must hold it ({@link MemoryBudget}, as for every backend);</li>
 *   <li>and if SysV shared memory cannot take it ({@code kernel.shmmax}, {@code kernel.shmall} left)
 *       so that UCX goes on to a posix segment, {@code /dev/shm} must have the room, and keep 64 MiB
 *       or an eighth of its size free, whichever is smaller.</li>
 * </ul>
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class UcxMemoryBudget {

    private static final long PAGE = 4096;

    private UcxMemoryBudget() {
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
        MemoryBudget.check(bytes, s.host());
        List<String> order = List.of((allocOrder == null ? "md:sysv,md:posix,thp,mmap,heap" : allocOrder)
                .toLowerCase(Locale.ROOT).replace(" ", "").split(",", -1));
        for (String method : order) {
            if (method.equals("md:sysv") && s.sysvCanHold(bytes)) {
                return;
            }
            if (method.equals("md:posix")) {
                if (s.shmFreeBytes() >= bytes + s.shmReserveBytes()) {
                    return;
                }
                throw MemoryBudget.refusal(bytes, s.shmFreeBytes(), "UCX would put it in a posix segment in /dev/shm,"
                        + " which has " + MemoryBudget.describe(s.shmFreeBytes()) + " free"
                        + (order.contains("md:sysv") ? " (SysV shared memory cannot take it: kernel.shmmax "
                        + MemoryBudget.describe(s.shmmax()) + ", kernel.shmall leaves "
                        + MemoryBudget.describe(s.shmallLeftBytes()) + ")" : ""));
            }
            if (method.equals("thp") || method.equals("mmap") || method.equals("heap")) {
                return;
            }
        }
    }

    /** What the host has now: the machine's figures and UCX's shared-memory limits. */
    record Snapshot(HostMemory host, long shmFreeBytes, long shmTotalBytes, long shmmax, long shmallPages,
            long shmUsedPages) {

        static Snapshot read() {
            long shmFree;
            long shmTotal;
            try {
                java.nio.file.FileStore store = Files.getFileStore(Path.of("/dev/shm"));
                shmFree = store.getUsableSpace();
                shmTotal = store.getTotalSpace();
            } catch (IOException | RuntimeException e) {
                shmFree = 0; // no /dev/shm: UCX's posix segments cannot be had
                shmTotal = 0;
            }
            long used = 0;
            try {
                List<String> lines = Files.readAllLines(Path.of("/proc/sysvipc/shm"), StandardCharsets.US_ASCII);
                for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
                    String[] f = line.trim().split("\\s+", -1);
                    if (f.length > 3) {
                        used += (Long.parseLong(f[3]) + PAGE - 1) / PAGE;
                    }
                }
            } catch (IOException | NumberFormatException e) {
                // unknown: count nothing used
            }
            return new Snapshot(HostMemory.read(), shmFree, shmTotal,
                    HostMemory.number(Path.of("/proc/sys/kernel/shmmax"), Long.MAX_VALUE),
                    HostMemory.number(Path.of("/proc/sys/kernel/shmall"), Long.MAX_VALUE), used);
        }

        /**
         * What a posix segment must leave free in {@code /dev/shm}: the machine's reserve (64 MiB),
         * or an eighth of {@code /dev/shm} where that is smaller (a container's is 64 MiB).
         */
        long shmReserveBytes() {
            return Math.min(MemoryBudget.RESERVE_BYTES, shmTotalBytes / 8);
        }

        boolean sysvCanHold(long bytes) {
            return bytes <= shmmax && (bytes + PAGE - 1) / PAGE <= shmallPages - shmUsedPages;
        }

        long shmallLeftBytes() {
            long pages = shmallPages - shmUsedPages;
            return pages > Long.MAX_VALUE / PAGE ? Long.MAX_VALUE : Math.max(0, pages) * PAGE;
        }
    }
}
