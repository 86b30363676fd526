package io.blockxfer.multihost;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The soak's sums: every {@link SessionStats} of every phase of every peer session, and the events
 * the sessions emit. It keeps each peer's latest {@code MODEL} (for the target to verify), its
 * latest {@code FAIL}, and the first lines of every kind that means something went wrong
 * ({@code MISMATCH}, {@code UNEXPECTED}, {@code LOST}, {@code ERR}).
 *
 * <p><b>Thread safety:</b> thread-safe; sessions emit from their own threads.
 */
final class SoakTally implements EventSink {

    private static final int KEEP = 20;

    private final Map<String, String> models = new ConcurrentHashMap<>();
    private final Map<String, String> lastFail = new ConcurrentHashMap<>();
    private final List<String> problems = new ArrayList<>();
    private long problemLines;
    private long sessionErrors;

    long phases;
    long submitted;
    long done;
    long failed;
    long lost;
    long dup;
    long foreign;
    long mismatches;
    long notSubmitted;
    long writesDone;
    long verifiedWrites;
    long unverifiedWrites;
    long verifiedReads;
    long verifiedBlocks;
    long bytes;

    @Override
    public void emit(String line) {
        if (line.startsWith("E MODEL ")) {
            EventFields f = EventFields.parse(line);
            int at = line.indexOf(" blocks=");
            models.put(f.get("peer"), at < 0 ? "" : line.substring(at + 8));
        } else if (line.startsWith("E FAIL ")) {
            lastFail.put(EventFields.parse(line).get("peer"), line);
        } else if (line.startsWith("E MISMATCH") || line.startsWith("E UNEXPECTED") || line.startsWith("E LOST")
                || line.startsWith("E ERR")) {
            synchronized (this) {
                problemLines++;
                if (line.startsWith("E ERR")) {
                    sessionErrors++;
                }
                if (problems.size() < KEEP) {
                    problems.add(line);
                }
            }
        }
    }

    /** Adds the counters of one finished phase. */
    synchronized void add(SessionStats s) {
        phases++;
        submitted += s.submitted;
        done += s.done;
        failed += s.failed;
        lost += s.lost;
        dup += s.dup;
        foreign += s.foreign;
        mismatches += s.mismatches;
        notSubmitted += s.notSubmitted;
        writesDone += s.writesDone;
        verifiedWrites += s.verifiedWrites;
        unverifiedWrites += s.unverifiedWrites;
        verifiedReads += s.verifiedReads;
        verifiedBlocks += s.verifiedBlocks;
        bytes += s.bytes;
    }

    /** The {@code blocks=} list of the peer's latest {@code MODEL}, or empty. */
    String model(String peer) {
        return models.getOrDefault(peer, "");
    }

    /** The peer's latest {@code FAIL} line, or a note that there was none. */
    String lastFailure(String peer) {
        return lastFail.getOrDefault(peer, "(no FAIL event from " + peer + ")");
    }

    /** The first problem lines, and how many there were in all. */
    synchronized List<String> problems() {
        List<String> out = new ArrayList<>(problems);
        if (problemLines > problems.size()) {
            out.add("... " + (problemLines - problems.size()) + " more");
        }
        return out;
    }

    /** {@code ERR} events: a session that ended or crashed on an exception. */
    synchronized long sessionErrors() {
        return sessionErrors;
    }

    /** One line of the main counters. */
    synchronized String summary() {
        return "phases=" + phases + " submitted=" + submitted + " done=" + done + " failed=" + failed + " lost=" + lost
                + " dup=" + dup + " foreign=" + foreign + " mismatches=" + mismatches + " verifiedBlocks="
                + verifiedBlocks;
    }
}
