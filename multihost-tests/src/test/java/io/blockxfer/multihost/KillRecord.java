package io.blockxfer.multihost;

import io.blockxfer.tck.process.UcxShmFiles;

/**
 * What happened around one kill of a target: when, how the initiator found out, how many of its
 * transfers failed, how long the restart took, and whether the restarted peer worked.
 *
 * <p><b>Thread safety:</b> not thread-safe; written by the soak's conductor, and by its restarter
 * before it hands the new target over (the hand-over orders the writes).
 */
final class KillRecord {

    final String peer;
    final String incarnation;
    final long pid;
    final long atMillis;
    /** Whether the session saw a failure before the control plane removed the peer. */
    boolean detected;
    long firstFailureAtMillis = -1;
    long downAtMillis = -1;
    long failed;
    long lost;
    long doneInPhase;
    long readyAtMillis = -1;
    long readdedAtMillis = -1;
    String restartError = "";
    UcxShmFiles.Sweep shm = UcxShmFiles.Sweep.NONE;
    /** Transfers the restarted incarnation completed, set when it ends; -1 while it lives. */
    long doneAfter = -1;
    /** How long the restarted incarnation was registered, set when it ends. */
    long livedMillis = -1;

    KillRecord(String peer, String incarnation, long pid, long atMillis) {
        this.peer = peer;
        this.incarnation = incarnation;
        this.pid = pid;
        this.atMillis = atMillis;
    }

    /** Milliseconds from the kill to {@code atMillis}, or -1 when that never happened. */
    long after(long atMillisOfEvent) {
        return atMillisOfEvent < 0 ? -1 : atMillisOfEvent - atMillis;
    }

    /** One table row for the report. */
    String row() {
        return "| " + incarnation + " | " + (pid < 0 ? "-" : Long.toString(pid)) + " | "
                + (detected ? after(firstFailureAtMillis) + " ms" : "not seen; removed by control plane") + " | "
                + (downAtMillis < 0 ? "-" : after(downAtMillis) + " ms") + " | " + failed + " | " + lost + " | "
                + (readyAtMillis < 0 ? "-" : after(readyAtMillis) + " ms") + " | "
                + (readdedAtMillis < 0 ? "never" : after(readdedAtMillis) + " ms") + " | "
                + (doneAfter < 0 ? "-" : Long.toString(doneAfter)) + " | " + shm.found() + " |"
                + (restartError.isEmpty() ? "" : " " + restartError + " |");
    }
}
