package io.blockxfer.ucx.internal;

import io.blockxfer.transport.internal.memory.HostMemory;
import io.blockxfer.transport.internal.memory.MemoryBudget;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Names a resource this process ran out of, for the message of a native failure: UCX reports an
 * exhausted file-descriptor table as whatever its failing step returns ({@code UCS_ERR_IO_ERROR},
 * {@code UCS_ERR_ENDPOINT_TIMEOUT}, ...), which reads like a bad peer or a network fault.
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class ResourceShortage {

    private ResourceShortage() {
    }

    /** {@code "; <what ran out>"} when file descriptors or memory are exhausted now, else {@code ""}. */
    static String describe() {
        StringBuilder b = new StringBuilder();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            long open = fds.count();
            long limit = openFilesLimit();
            if (limit > 0 && open >= limit - 16) {
                b.append("; this process has ").append(open).append(" of its ").append(limit)
                        .append(" file descriptors open (ulimit -n)");
            }
        } catch (FileSystemException e) {
            if (String.valueOf(e.getReason()).contains("Too many open files")) {
                b.append("; this process is out of file descriptors (Too many open files; ulimit -n)");
            }
        } catch (IOException | RuntimeException e) {
            // nothing to add
        }
        HostMemory s = HostMemory.read();
        if (s.memAvailable() != Long.MAX_VALUE && s.memAvailable() + s.swapFree() < MemoryBudget.RESERVE_BYTES) {
            b.append("; this host is out of memory (").append(MemoryBudget.describe(s.memAvailable()))
                    .append(" available)");
        }
        return b.toString();
    }

    private static long openFilesLimit() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/limits"), StandardCharsets.US_ASCII)) {
            if (line.startsWith("Max open files")) {
                String[] f = line.substring("Max open files".length()).trim().split("\\s+", -1);
                return f[0].equals("unlimited") ? -1 : Long.parseLong(f[0]);
            }
        }
        return -1;
    }
}
