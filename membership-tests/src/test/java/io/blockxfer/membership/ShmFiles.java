package io.blockxfer.membership;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * UCX's POSIX shared-memory files ({@code /dev/shm/ucx_shm_posix_*}) of the member processes. UCX
 * unlinks such a file when its process frees the segment; a SIGKILLed process never does, and the
 * UCX backend sweeps left-over files only at its next load, after they have been quiet for 10 s. The
 * tests note which files each member maps (from {@code /proc/<pid>/maps}, while it lives) and,
 * once every member has ended, remove those that no other live process maps, so that a test leaves
 * none of its own behind (and touches no one else's).
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class ShmFiles {

    static final String PREFIX = "/dev/shm/ucx_shm_posix_";
    private static final String DELETED = " (deleted)";

    private ShmFiles() {
    }

    /** The UCX POSIX segment files process {@code pid} maps now (not those already unlinked); empty when it is gone. */
    static Set<Path> mappedBy(long pid) {
        Set<Path> files = new LinkedHashSet<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(Path.of("/proc", Long.toString(pid), "maps"));
        } catch (IOException e) {
            return files;
        }
        for (String line : lines) {
            int at = line.indexOf(PREFIX);
            if (at >= 0 && !line.endsWith(DELETED)) {
                files.add(Path.of(line.substring(at).trim()));
            }
        }
        return files;
    }

    /**
     * Removes each of {@code files} that still exists and that no live process other than this one
     * maps; call it once the processes that mapped them have ended.
     *
     * @return the files that are still there (mapped by a live process, or not removable)
     */
    static List<Path> sweep(Collection<Path> files) {
        List<Path> left = new ArrayList<>();
        for (Path f : new LinkedHashSet<>(files)) {
            if (!Files.exists(f)) {
                continue;
            }
            if (mappedByOtherProcess(f)) {
                left.add(f);
                continue;
            }
            try {
                Files.deleteIfExists(f);
            } catch (IOException e) {
                left.add(f);
            }
        }
        return left;
    }

    /** Whether a live process other than this one maps {@code file}. */
    static boolean mappedByOtherProcess(Path file) {
        String self = Long.toString(ProcessHandle.current().pid());
        String name = file.toString();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"),
                p -> p.getFileName().toString().chars().allMatch(Character::isDigit)
                        && !p.getFileName().toString().equals(self))) {
            for (Path proc : procs) {
                try {
                    for (String line : Files.readAllLines(proc.resolve("maps"))) {
                        if (line.endsWith(name)) {
                            return true;
                        }
                    }
                } catch (IOException ignored) {
                    // ended meanwhile, or not readable: it cannot be asked
                }
            }
        } catch (IOException e) {
            return true; // cannot tell: keep the file
        }
        return false;
    }
}
