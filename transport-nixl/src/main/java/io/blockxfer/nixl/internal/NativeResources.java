package io.blockxfer.nixl.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What this process has left of the native resources a NIXL connection needs, read from
 * {@code /proc/self}: open file descriptors against the soft limit, and available memory. Used to
 * name the native cause when NIXL refuses metadata that passed every structural check (the C ABI
 * reports only {@code -2}), so that exhaustion is reported as such and never as bad input.
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class NativeResources {

    /** File descriptors a new connection may need (sockets, event fds) and that must still be free. */
    static final long FD_HEADROOM = 64;
    /** Memory below which a connection's buffers may fail to allocate. */
    static final long LOW_MEMORY_KIB = 64 * 1024;

    private NativeResources() {
    }

    /** Loads this class ahead of need: when descriptors run out, loading a class can fail too. */
    static void preload() {
        // class initialisation is the work
    }

    /** The cause, if file descriptors or memory are (nearly) exhausted; empty otherwise or if unreadable. */
    static Optional<String> exhaustion() {
        try {
            long open;
            try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
                open = fds.count();
            } catch (IOException e) {
                if (String.valueOf(e.getMessage()).contains("Too many open files")) {
                    return Optional.of("file descriptors exhausted: not even /proc/self/fd could be opened ("
                            + e.getMessage() + ")");
                }
                throw e;
            }
            long limit = softFdLimit();
            if (limit > 0 && open + FD_HEADROOM >= limit) {
                return Optional.of("file descriptors exhausted: " + open + " open of a soft limit of " + limit
                        + " (ulimit -n)");
            }
            long available = availableMemoryKib();
            if (available >= 0 && available < LOW_MEMORY_KIB) {
                return Optional.of("out of memory: " + available / 1024 + " MiB available (MemAvailable)");
            }
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static long softFdLimit() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
            if (line.startsWith("Max open files")) {
                String[] f = line.substring("Max open files".length()).trim().split("\\s+", -1);
                return f[0].equals("unlimited") ? -1 : Long.parseLong(f[0]);
            }
        }
        return -1;
    }

    private static long availableMemoryKib() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
            if (line.startsWith("MemAvailable:")) {
                return Long.parseLong(line.substring("MemAvailable:".length()).replace("kB", "").strip());
            }
        }
        return -1;
    }
}
