package io.blockxfer.multihost;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * UCX's POSIX shared-memory files ({@code /dev/shm/ucx_shm_posix_*}) of processes the soak started.
 * UCX unlinks such a file when the process that created it frees the segment; a SIGKILLed process
 * never does, so its files stay until someone removes them. The soak notes which files each child
 * maps (from {@code /proc/<pid>/maps}, while it lives) and, once the child has ended, removes those
 * that no other live process maps.
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class ShmSegments {

    static final String PREFIX = "/dev/shm/ucx_shm_posix_";
    private static final String DELETED = " (deleted)";

    /**
     * What a sweep found.
     *
     * @param found files of ended processes that were still there
     * @param bytes their total size
     * @param removed how many of them were removed
     * @param kept those left because another live process maps them
     */
    record Sweep(int found, long bytes, int removed, List<Path> kept) {

        static final Sweep NONE = new Sweep(0, 0, 0, List.of());

        Sweep plus(Sweep other) {
            List<Path> all = new ArrayList<>(kept);
            all.addAll(other.kept);
            return new Sweep(found + other.found, bytes + other.bytes, removed + other.removed, List.copyOf(all));
        }
    }

    private ShmSegments() {
    }

    /** The UCX POSIX segment files process {@code pid} maps now; empty when it is gone. */
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
     * maps. Call it only for files of processes that have ended.
     */
    static Sweep sweep(Collection<Path> files) {
        int found = 0;
        int removed = 0;
        long bytes = 0;
        List<Path> kept = new ArrayList<>();
        for (Path f : new LinkedHashSet<>(files)) {
            long size;
            try {
                size = Files.size(f);
            } catch (NoSuchFileException e) {
                continue;
            } catch (IOException e) {
                size = 0;
            }
            found++;
            bytes += size;
            if (mappedByOtherProcess(f)) {
                kept.add(f);
                continue;
            }
            try {
                Files.deleteIfExists(f);
                removed++;
            } catch (IOException e) {
                kept.add(f);
            }
        }
        return new Sweep(found, bytes, removed, List.copyOf(kept));
    }

    /** Whether a live process other than this one maps {@code file}. */
    static boolean mappedByOtherProcess(Path file) {
        String self = Long.toString(ProcessHandle.current().pid());
        String name = file.toString();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), p -> isPid(p) && !p.getFileName()
                .toString().equals(self))) {
            for (Path proc : procs) {
                try {
                    for (String line : Files.readAllLines(proc.resolve("maps"))) {
                        if (line.endsWith(name)) {
                            return true;
                        }
                    }
                } catch (IOException ignored) {
                    // the process ended meanwhile, or its maps are not readable: it cannot be asked
                }
            }
        } catch (IOException e) {
            return true; // cannot tell: keep the file
        }
        return false;
    }

    private static boolean isPid(Path p) {
        String n = p.getFileName().toString();
        return !n.isEmpty() && n.chars().allMatch(Character::isDigit);
    }
}
