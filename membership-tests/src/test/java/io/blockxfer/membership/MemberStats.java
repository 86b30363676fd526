package io.blockxfer.membership;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a member's transfers came to, as its {@code STATS} line carries it: per peer, ids submitted,
 * reported done and failed, rounds whose bytes were verified or wrong, submits refused because the
 * peer was not registered, and ids still in flight; and the ids reported without being in flight.
 *
 * <p>Line: {@code STATS <millis> <violations> [<peer>=<submitted>,<done>,<failed>,<unexplained>,
 * <verified>,<mismatched>,<notSubmitted>,<pending>,<lastDoneMillis>,<firstFailMillis>,
 * <lastFailMillis> ...]}.
 *
 * @param millis when it was taken (the member's wall clock)
 * @param violations ids reported that were not in flight (twice, or never submitted)
 * @param peers the counts by peer
 *
 * <p><b>Thread safety:</b> the record is immutable; its {@link Peer}s are plain counters, owned by
 * whoever made them.
 */
record MemberStats(long millis, long violations, Map<String, Peer> peers) {

    /** The counts of one peer. <b>Thread safety:</b> not thread-safe. */
    static final class Peer {
        long submitted;
        long done;
        long failed;
        /** Failures not followed, within {@link MemberMain#EXPLAINED_WITHIN_MILLIS}, by a change of the peer's registration. */
        long unexplained;
        long verified;
        long mismatched;
        long notSubmitted;
        long pending;
        long lastDoneMillis;
        long firstFailMillis;
        long lastFailMillis;
        /** When each failed transfer was submitted (kept by the member only). */
        final List<Long> failedSubmits = new ArrayList<>();

        Peer copy() {
            Peer c = new Peer();
            c.submitted = submitted;
            c.done = done;
            c.failed = failed;
            c.unexplained = unexplained;
            c.verified = verified;
            c.mismatched = mismatched;
            c.notSubmitted = notSubmitted;
            c.pending = pending;
            c.lastDoneMillis = lastDoneMillis;
            c.firstFailMillis = firstFailMillis;
            c.lastFailMillis = lastFailMillis;
            return c;
        }

        @Override
        public String toString() {
            return "submitted " + submitted + ", done " + done + ", failed " + failed + " (" + unexplained
                    + " unexplained), verified " + verified + ", mismatched " + mismatched + ", not submitted "
                    + notSubmitted + ", in flight " + pending;
        }
    }

    /** This as a {@code STATS} line. */
    String format() {
        StringBuilder s = new StringBuilder("STATS ").append(millis).append(' ').append(violations);
        peers.forEach((peer, p) -> s.append(' ').append(peer).append('=').append(p.submitted).append(',')
                .append(p.done).append(',').append(p.failed).append(',').append(p.unexplained).append(',')
                .append(p.verified).append(',').append(p.mismatched).append(',').append(p.notSubmitted).append(',')
                .append(p.pending).append(',').append(p.lastDoneMillis).append(',').append(p.firstFailMillis)
                .append(',').append(p.lastFailMillis));
        return s.toString();
    }

    /** Parses a {@code STATS} line. */
    static MemberStats parse(String line) {
        String[] parts = line.trim().split(" ", -1);
        if (parts.length < 3 || !parts[0].equals("STATS")) {
            throw new IllegalArgumentException("not a STATS line: " + line);
        }
        Map<String, Peer> peers = new TreeMap<>();
        for (int i = 3; i < parts.length; i++) {
            String peer = parts[i].substring(0, parts[i].indexOf('='));
            String[] v = parts[i].substring(peer.length() + 1).split(",", -1);
            if (v.length != 11) {
                throw new IllegalArgumentException("malformed peer counts '" + parts[i] + "' in: " + line);
            }
            Peer p = new Peer();
            p.submitted = Long.parseLong(v[0]);
            p.done = Long.parseLong(v[1]);
            p.failed = Long.parseLong(v[2]);
            p.unexplained = Long.parseLong(v[3]);
            p.verified = Long.parseLong(v[4]);
            p.mismatched = Long.parseLong(v[5]);
            p.notSubmitted = Long.parseLong(v[6]);
            p.pending = Long.parseLong(v[7]);
            p.lastDoneMillis = Long.parseLong(v[8]);
            p.firstFailMillis = Long.parseLong(v[9]);
            p.lastFailMillis = Long.parseLong(v[10]);
            peers.put(peer, p);
        }
        return new MemberStats(Long.parseLong(parts[1]), Long.parseLong(parts[2]), peers);
    }

    /** The counts of {@code peer}, all zero when this member never wrote to it. */
    Peer peer(String peer) {
        return peers.getOrDefault(peer, new Peer());
    }

    @Override
    public String toString() {
        return "violations " + violations + ", " + peers;
    }
}
