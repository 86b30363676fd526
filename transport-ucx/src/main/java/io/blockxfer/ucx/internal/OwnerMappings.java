package io.blockxfer.ucx.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where a process maps a shared-memory segment, from {@code /proc/<pid>/maps}: a SysV segment
 * appears as {@code /SYSV<key>} with the segment id as its inode, a posix segment as its file's
 * inode. A remote key names a segment and the address its owner mapped it at; that the owner
 * really maps that very segment there ties the key to the owner's region, so a damaged id that
 * happens to name another live segment of the same process (UCX's own receive buffers, say) is
 * caught. Answers are cached by pid, inode and address, since peers are added again and again.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
final class OwnerMappings {

    private static final int CACHE_ENTRIES = 512;
    private static final Map<String, Long> CACHE = new LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > CACHE_ENTRIES;
        }
    };

    private OwnerMappings() {
    }

    /**
     * The length of the mapping that process {@code pid} has of the segment with inode
     * {@code inode} (for SysV: its id) starting at {@code address}, or -1 when it has none there.
     *
     * @param sysv whether the segment is a SysV segment (else a file)
     * @throws IOException when the process's maps cannot be read (gone, or not this user's)
     */
    static long mappedLength(long pid, long inode, long address, boolean sysv) throws IOException {
        String key = pid + ":" + inode + ":" + address + ":" + sysv;
        synchronized (CACHE) {
            Long cached = CACHE.get(key);
            if (cached != null) {
                return cached;
            }
        }
        long found = -1;
        try (BufferedReader in = Files.newBufferedReader(Path.of("/proc", Long.toString(pid), "maps"),
                StandardCharsets.ISO_8859_1)) {
            String line;
            while ((line = in.readLine()) != null) {
                long length = match(line, inode, address, sysv);
                if (length >= 0) {
                    found = length;
                    break;
                }
            }
        }
        if (found >= 0) {
            synchronized (CACHE) {
                CACHE.put(key, found);
            }
        }
        return found;
    }

    /**
     * As {@link #mappedLength} for this process, read afresh (its own mappings come and go with
     * every peer, so nothing is cached).
     */
    static long selfMappedLength(long inode, long address, boolean sysv) throws IOException {
        try (BufferedReader in = Files.newBufferedReader(Path.of("/proc/self/maps"), StandardCharsets.ISO_8859_1)) {
            String line;
            while ((line = in.readLine()) != null) {
                long length = match(line, inode, address, sysv);
                if (length >= 0) {
                    return length;
                }
            }
        }
        return -1;
    }

    /** Forgets what was cached about process {@code pid} (its segments may be gone). */
    static void forget(long pid) {
        String prefix = pid + ":";
        synchronized (CACHE) {
            CACHE.keySet().removeIf(k -> k.startsWith(prefix));
        }
    }

    /** {@code start-end perms offset dev inode path}: the length if it is the mapping sought, else -1. */
    static long match(String line, long inode, long address, boolean sysv) {
        String[] f = line.trim().split("\\s+", 6);
        if (f.length < 6) {
            return -1;
        }
        int dash = f[0].indexOf('-');
        if (dash < 0) {
            return -1;
        }
        try {
            long start = Long.parseUnsignedLong(f[0], 0, dash, 16);
            long end = Long.parseUnsignedLong(f[0], dash + 1, f[0].length(), 16);
            if (start != address || Long.parseLong(f[4]) != inode) {
                return -1;
            }
            if (sysv != f[5].startsWith("/SYSV")) {
                return -1;
            }
            return end - start;
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
