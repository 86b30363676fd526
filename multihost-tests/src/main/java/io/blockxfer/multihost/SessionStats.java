package io.blockxfer.multihost;

/**
 * The counters of one phase of a {@link PeerSession} (a phase starts at START and at every
 * re-add), formatted as {@code key=value} pairs for the control channel.
 *
 * <p>Invariants the suite checks: {@code submitted == done + failed + lost}; {@code dup == 0};
 * {@code foreign == 0}; {@code mismatches == 0}; on a healthy peer {@code failed == 0} and
 * {@code verifiedWrites == writesDone}.
 *
 * <p><b>Thread safety:</b> not thread-safe; written by the session thread, read by others only
 * after joining it.
 */
final class SessionStats {

    long submitted;
    long writes;
    long reads;
    long readBacks;
    long done;
    long failed;
    long writesDone;
    long verifiedWrites;
    long unverifiedWrites;
    long verifiedReads;
    long verifiedBlocks;
    long mismatches;
    long dup;
    long foreign;
    long notSubmitted;
    long lost;
    long bytes;
    long firstFailureAtMillis = -1;
    long downAtMillis = -1;
    long maxLatencyMicros;
    long latencySumMicros;

    void latency(long micros) {
        latencySumMicros += micros;
        if (micros > maxLatencyMicros) {
            maxLatencyMicros = micros;
        }
    }

    /** Every counter as {@code key=value} pairs separated by spaces. */
    String format() {
        long terminal = done + failed;
        return "submitted=" + submitted + " writes=" + writes + " reads=" + reads + " readBacks=" + readBacks
                + " done=" + done + " failed=" + failed + " writesDone=" + writesDone
                + " verifiedWrites=" + verifiedWrites + " unverifiedWrites=" + unverifiedWrites
                + " verifiedReads=" + verifiedReads + " verifiedBlocks=" + verifiedBlocks
                + " mismatches=" + mismatches + " dup=" + dup + " foreign=" + foreign
                + " notSubmitted=" + notSubmitted + " lost=" + lost + " bytes=" + bytes
                + " firstFailureAt=" + firstFailureAtMillis + " downAt=" + downAtMillis
                + " meanLatencyUs=" + (terminal == 0 ? 0 : latencySumMicros / terminal)
                + " maxLatencyUs=" + maxLatencyMicros;
    }
}
