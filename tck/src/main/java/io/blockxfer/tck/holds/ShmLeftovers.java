package io.blockxfer.tck.holds;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The POSIX shared-memory files UCX maps ({@code /dev/shm/ucx_shm_posix_*}) in a holder process the
 * kit is about to SIGKILL: UCX unlinks such a file when its process frees the segment, which a
 * killed process never does. The kit notes the child's files before the kill and removes, after
 * the child ended, those no other live process maps, so a rule leaves none of its own behind and
 * touches no one else's. Nothing happens where there are none (other backends, other systems).
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class ShmLeftovers {

    private static final String PREFIX = "/dev/shm/ucx_shm_posix_";
    private static final String DELETED = " (deleted)";

    private ShmLeftovers() {
    }

    /** The UCX segment files process {@code pid} maps now. */
    static Set<Path> mappedBy(long pid) {
        Set<Path> files = new LinkedHashSet<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "maps"))) {
                int at = line.indexOf(PREFIX);
                if (at >= 0 && !line.endsWith(DELETED)) {
                    files.add(Path.of(line.substring(at).trim()));
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone, or no /proc: nothing to note
        }
        return files;
    }

    /** Removes each of {@code files} that no live process other than this one maps. */
    static void sweep(Set<Path> files) {
        for (Path f : files) {
            if (Files.exists(f) && !mappedElsewhere(f)) {
                try {
                    Files.deleteIfExists(f);
                } catch (IOException e) {
                    // left for the backend's own sweep at its next load
                }
            }
        }
    }

    private static boolean mappedElsewhere(Path file) {
        String self = Long.toString(ProcessHandle.current().pid());
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"),
                p -> p.getFileName().toString().chars().allMatch(Character::isDigit)
                        && !p.getFileName().toString().equals(self))) {
            for (Path p : procs) {
                try {
                    List<String> maps = Files.readAllLines(p.resolve("maps"));
                    if (maps.stream().anyMatch(l -> l.contains(file.toString()))) {
                        return true;
                    }
                } catch (IOException | RuntimeException e) {
                    // a process that ended or is not ours to read
                }
            }
        } catch (IOException e) {
            return true;
        }
        return false;
    }
}
