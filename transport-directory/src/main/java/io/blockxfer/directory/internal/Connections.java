package io.blockxfer.directory.internal;

import java.util.HashSet;
import java.util.Set;

/**
 * Which of a membership's watches have lost the directory: the membership is disconnected from
 * when the first of them breaks until the last is back. Watches are told apart by identity (their
 * listeners).
 *
 * <p><b>Thread safety:</b> not thread-safe; the membership's loop owns it.
 */
final class Connections {

    private final Set<Object> lost = new HashSet<>();
    private boolean resynced;

    /** {@code watch} lost the directory; true when it is the first: the membership is disconnected now. */
    boolean lost(Object watch) {
        boolean first = lost.isEmpty();
        if (!lost.add(watch)) {
            return false;
        }
        if (first) {
            resynced = false;
        }
        return first;
    }

    /**
     * {@code watch} is back ({@code resync}: it listed its keys again); true when it was the last
     * lost: the membership is connected again.
     */
    boolean back(Object watch, boolean resync) {
        if (!lost.remove(watch)) {
            return false;
        }
        resynced |= resync;
        return lost.isEmpty();
    }

    /** Whether any watch resynced since the membership was disconnected. */
    boolean resynced() {
        return resynced;
    }

    /** {@code watch} was closed: it no longer counts. */
    void closed(Object watch) {
        lost.remove(watch);
    }
}
