package io.blockxfer.directory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Every entry under a watch's prefix at one revision: what a {@link DirectoryListener} receives
 * first, before any {@link DirectoryEvent}.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public final class DirectorySnapshot {

    private final long revision;
    private final List<DirectoryEntry> entries;

    /**
     * A snapshot at {@code revision}.
     *
     * @param revision the directory's revision when it was listed; every entry's revision is at
     *     most this; zero or more (zero: a directory that was never written)
     * @param entries the entries, in any order (kept sorted by key); keys must be distinct
     * @throws IllegalArgumentException if the revision is negative, an entry is newer than the
     *     snapshot, or a key repeats
     */
    public DirectorySnapshot(long revision, List<DirectoryEntry> entries) {
        if (revision < 0) {
            throw new IllegalArgumentException("revision must not be negative: " + revision);
        }
        List<DirectoryEntry> sorted = new ArrayList<>(Objects.requireNonNull(entries, "entries"));
        sorted.sort(Comparator.comparing(DirectoryEntry::key));
        for (int i = 0; i < sorted.size(); i++) {
            DirectoryEntry e = sorted.get(i);
            if (e.revision() > revision) {
                throw new IllegalArgumentException(e + " is newer than the snapshot's revision " + revision);
            }
            if (i > 0 && sorted.get(i - 1).key().equals(e.key())) {
                throw new IllegalArgumentException("key " + DirectoryLimits.printable(e.key()) + " appears twice");
            }
        }
        this.revision = revision;
        this.entries = List.copyOf(sorted);
    }

    /** The directory's revision when it was listed. */
    public long revision() {
        return revision;
    }

    /** The entries, sorted by key; unmodifiable. */
    public List<DirectoryEntry> entries() {
        return entries;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DirectorySnapshot s && revision == s.revision && entries.equals(s.entries);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(revision) * 31 + entries.hashCode();
    }

    @Override
    public String toString() {
        return "DirectorySnapshot[revision " + revision + ", " + entries.size() + " entries]";
    }
}
