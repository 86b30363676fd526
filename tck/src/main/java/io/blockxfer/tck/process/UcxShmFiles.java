package io.blockxfer.tck.process;

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
 * UCX's POSIX shared-memory files ({@code /dev/shm/ucx_shm_posix_*}) of child processes a test
 * kills. UCX unlinks such a file when its process frees the segment; a SIGKILLed process never
 * does, and the UCX backend removes left-over files only at its next load, once they have been
 * quiet for 10 s. A test notes which files a child maps while it lives ({@link #mappedBy}) and,
 * once the child has ended, removes those that no other live process maps ({@link #sweep}), so
 * that it leaves none of its own behind and touches no one else's. Where there are none (another
 * backend, a system without {@code /proc}), nothing is found and nothing removed.
 *
 * <pre>{@code
 * Set<Path> files = UcxShmFiles.mappedBy(child.pid());
 * child.kill();
 * UcxShmFiles.Sweep sweep = UcxShmFiles.sweep(files);
 * }</pre>
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class UcxShmFiles {

    /** The path every UCX POSIX segment file starts with. */
    public static final String PREFIX = "/dev/shm/ucx_shm_posix_";
    private static final String DELETED = " (deleted)";

    /**
     * What a sweep found.
     *
     * @param found the files that were still there
     * @param bytes their total size
     * @param removed how many of them were removed
     * @param kept those left: another live process maps them, or they could not be removed
     */
    public record Sweep(int found, long bytes, int removed, List<Path> kept) {

        /** A sweep that found nothing. */
        public static final Sweep NONE = new Sweep(0, 0, 0, List.of());

        /** A copy that keeps its own list of what was kept. */
        public Sweep {
            kept = List.copyOf(kept);
        }

        /** This sweep and {@code other} counted together. */
        public Sweep plus(Sweep other) {
            List<Path> all = new ArrayList<>(kept);
            all.addAll(other.kept);
            return new Sweep(found + other.found, bytes + other.bytes, removed + other.removed, all);
        }
    }

    private UcxShmFiles() {
    }

    /**
     * The UCX segment files process {@code pid} maps now, those already unlinked left out; empty
     * when the process is gone or cannot be read.
     */
    public static Set<Path> mappedBy(long pid) {
        Set<Path> files = new LinkedHashSet<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "maps"))) {
                int at = line.indexOf(PREFIX);
                if (at >= 0 && !line.endsWith(DELETED)) {
                    files.add(Path.of(line.substring(at).trim()));
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone, not ours to read, or no /proc: nothing to note
        }
        return files;
    }

    /**
     * Removes each of {@code files} that still exists and that no live process other than this one
     * maps. Call it once the processes that mapped them have ended.
     */
    public static Sweep sweep(Collection<Path> files) {
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
            if (mappedByAnotherProcess(f)) {
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
        return new Sweep(found, bytes, removed, kept);
    }

    /** Whether a live process other than this one maps {@code file}; true when that cannot be told. */
    public static boolean mappedByAnotherProcess(Path file) {
        String self = Long.toString(ProcessHandle.current().pid());
        String name = file.toString();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), p -> isPid(p)
                && !p.getFileName().toString().equals(self))) {
            for (Path proc : procs) {
                try {
                    for (String line : Files.readAllLines(proc.resolve("maps"))) {
                        if (line.endsWith(name)) {
                            return true;
                        }
                    }
                } catch (IOException | RuntimeException ignored) {
                    // ended meanwhile, or its maps are not ours to read: it cannot be asked
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
