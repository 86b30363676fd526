package io.blockxfer.ucx.internal;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Removes the posix shared-memory files ({@code /dev/shm/ucx_shm_posix_*}) that UCX processes left
 * when they were killed: UCX unlinks such a file only when it frees the segment (or, in its default
 * proc-link mode, right after it has filled it with zeros), so a {@code kill -9}, or an
 * out-of-memory kill while it fills a large one, leaves the file and its memory behind for good.
 * Run once per process, when UCX is first loaded, so no such file outlives its owner for longer
 * than the next start of a blockxfer UCX process on the host.
 *
 * <p>A file is removed only when all of this holds: it belongs to this user; it has not been
 * written for {@value #QUIET_SECONDS} s (UCX writes a new segment through while it creates it);
 * and no live process has it open or mapped. The kernel tells the last one: a write lease on the
 * file is granted only while nobody else has it open, and a mapping keeps it open
 * ({@link UcxLibrary#removeIfUnused}); the file is unlinked under the lease. Where leases are not
 * available, {@code /proc/<pid>/fd} and {@code /proc/<pid>/maps} of every process are read instead,
 * and if some process of this user cannot be inspected, nothing is removed.
 *
 * <p><b>Thread safety:</b> stateless; concurrent sweeps are harmless (removal is idempotent).
 */
final class ShmSweeper {

    private static final System.Logger LOG = System.getLogger(ShmSweeper.class.getName());
    static final int QUIET_SECONDS = 10;
    private static final Path DEV_SHM = Path.of("/dev/shm");

    private ShmSweeper() {
    }

    /** Sweeps {@code /dev/shm}; returns the files removed. Never throws. */
    static List<Path> sweep() {
        try {
            return sweep(DEV_SHM, Path.of("/proc"), System.currentTimeMillis());
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.DEBUG, () -> "sweeping left-over UCX posix segments failed: " + e);
            return List.of();
        }
    }

    static List<Path> sweep(Path shmDir, Path proc, long nowMillis) throws IOException {
        List<Path> candidates = new ArrayList<>();
        long uid = ((Number) Files.getAttribute(proc.resolve("self"), "unix:uid")).longValue();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(shmDir, PosixSegmentId.FILE_PREFIX + "*")) {
            for (Path f : files) {
                try {
                    long owner = ((Number) Files.getAttribute(f, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue();
                    FileTime modified = Files.getLastModifiedTime(f, LinkOption.NOFOLLOW_LINKS);
                    if (owner == uid && Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)
                            && nowMillis - modified.toMillis() > QUIET_SECONDS * 1000L) {
                        candidates.add(f);
                    }
                } catch (NoSuchFileException gone) {
                    // removed meanwhile
                }
            }
        }
        List<Path> removed = new ArrayList<>();
        List<Path> untold = new ArrayList<>();
        for (Path f : candidates) {
            switch (UcxLibrary.removeIfUnused(f)) {
                case REMOVED -> removed.add(f);
                case IN_USE -> {
                    // a live process holds it
                }
                case CANNOT_TELL -> untold.add(f);
            }
        }
        if (!untold.isEmpty()) {
            Set<String> inUse = new HashSet<>();
            if (collectInUse(proc, uid, inUse)) {
                for (Path f : untold) {
                    if (!inUse.contains(f.toString()) && Files.deleteIfExists(f)) {
                        removed.add(f);
                    }
                }
            }
        }
        if (!removed.isEmpty()) {
            LOG.log(Level.INFO, "removed {0} posix shared-memory file(s) that UCX processes which no longer run"
                    + " left in {1}: {2}", removed.size(), shmDir, removed);
        }
        return removed;
    }

    /**
     * Adds every file that a live process has open or mapped; false if a process of user
     * {@code uid} could not be inspected (then nothing may be removed).
     */
    static boolean collectInUse(Path proc, long uid, Set<String> inUse) throws IOException {
        List<Path> pids;
        try (Stream<Path> s = Files.list(proc)) {
            pids = s.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).toList();
        }
        for (Path pid : pids) {
            try {
                try (DirectoryStream<Path> fds = Files.newDirectoryStream(pid.resolve("fd"))) {
                    for (Path fd : fds) {
                        try {
                            inUse.add(stripDeleted(Files.readSymbolicLink(fd).toString()));
                        } catch (IOException gone) {
                            // closed meanwhile
                        }
                    }
                }
                for (String line : Files.readAllLines(pid.resolve("maps"), java.nio.charset.StandardCharsets.ISO_8859_1)) {
                    int at = line.indexOf('/');
                    if (at >= 0) {
                        inUse.add(stripDeleted(line.substring(at)));
                    }
                }
            } catch (NoSuchFileException gone) {
                // the process ended
            } catch (IOException | SecurityException e) {
                long owner;
                try {
                    owner = ((Number) Files.getAttribute(pid, "unix:uid")).longValue();
                } catch (IOException | RuntimeException gone) {
                    continue;
                }
                if (owner == uid) {
                    LOG.log(Level.DEBUG, () -> "process " + pid.getFileName() + " of this user cannot be inspected ("
                            + e + "): no UCX posix segment is swept");
                    return false;
                }
            }
        }
        return true;
    }

    private static String stripDeleted(String path) {
        String p = path.trim();
        return p.endsWith(" (deleted)") ? p.substring(0, p.length() - " (deleted)".length()) : p;
    }
}
