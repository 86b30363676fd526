package io.blockxfer.transport.internal.memory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What this host has for new memory now: {@code MemAvailable} and {@code SwapFree} from
 * {@code /proc/meminfo}, the overcommit mode and the commit limit left, and the cgroup's
 * {@code memory.max} left. A missing source counts as unlimited ({@link Long#MAX_VALUE}): it is not
 * this host's limit.
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param memAvailable {@code MemAvailable} in bytes, or {@link Long#MAX_VALUE} if unknown
 * @param swapFree {@code SwapFree} in bytes
 * @param overcommitMode {@code vm.overcommit_memory} (0 if unknown)
 * @param commitLeft {@code CommitLimit - Committed_AS} in bytes, or {@link Long#MAX_VALUE} if unknown
 * @param cgroupLeft {@code memory.max - memory.current} of this process's cgroup, or {@link Long#MAX_VALUE}
 */
public record HostMemory(long memAvailable, long swapFree, int overcommitMode, long commitLeft, long cgroupLeft) {

    /** A host that limits nothing. */
    public static final HostMemory UNLIMITED = new HostMemory(Long.MAX_VALUE, 0, 0, Long.MAX_VALUE, Long.MAX_VALUE);

    /** Reads this host's figures now. */
    public static HostMemory read() {
        long available = Long.MAX_VALUE;
        long swap = 0;
        long commitLimit = Long.MAX_VALUE;
        long committed = 0;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"), StandardCharsets.US_ASCII)) {
                String[] f = line.split("\\s+", -1);
                if (f.length < 2) {
                    continue;
                }
                long bytes = Long.parseLong(f[1]) * 1024;
                switch (f[0]) {
                    case "MemAvailable:" -> available = bytes;
                    case "SwapFree:" -> swap = bytes;
                    case "CommitLimit:" -> commitLimit = bytes;
                    case "Committed_AS:" -> committed = bytes;
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
        return new HostMemory(available, swap, mode,
                commitLimit == Long.MAX_VALUE ? Long.MAX_VALUE : commitLimit - committed, cgroupLeft);
    }

    /**
     * The first number in a one-line file, or {@code absent} if the file is missing or holds no
     * number (e.g. {@code max}); values beyond {@link Long#MAX_VALUE} count as {@link Long#MAX_VALUE}.
     */
    public static long number(Path file, long absent) {
        try {
            String s = Files.readString(file, StandardCharsets.US_ASCII).trim();
            return Long.parseUnsignedLong(s) < 0 ? Long.MAX_VALUE : Long.parseLong(s);
        } catch (IOException | NumberFormatException e) {
            return absent;
        }
    }
}
