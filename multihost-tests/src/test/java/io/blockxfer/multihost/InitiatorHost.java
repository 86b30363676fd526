package io.blockxfer.multihost;

import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A peer container running the initiator role: streams verified writes and reads to the targets
 * it is given, one session per target (see {@link PeerSession}).
 *
 * <p><b>Thread safety:</b> as {@link PeerHost}.
 */
final class InitiatorHost extends PeerHost {

    /** What STOP collected: each peer's last {@code STATS} and {@code MODEL}. Immutable after STOP. */
    record Outcome(Map<String, EventFields> stats, Map<String, String> models) {
    }

    private final Duration drain;

    InitiatorHost(Testbed bed, String name, Duration progress) throws IOException {
        super(bed, name, List.of("--role", "initiator", "--block-length", Long.toString(bed.blockLength()),
                "--timeout-ms", Long.toString(bed.transferTimeout().toMillis()),
                "--progress-ms", Long.toString(progress.toMillis()),
                "--drain-ms", Long.toString(bed.transferTimeout().plusSeconds(10).toMillis()),
                "--seed", Long.toString(System.nanoTime() & 0xffff)));
        this.drain = bed.transferTimeout().plusSeconds(10);
    }

    /** Registers {@code targets} (with the pattern family each was filled with) and starts streaming. */
    void addAndStart(List<TargetHost> targets) {
        for (TargetHost t : targets) {
            request("ADD " + t.name() + " " + t.family() + " " + t.descriptor());
        }
        request("START *");
    }

    /** Waits until at least {@code count} more transfers have been reported in total. */
    void awaitReported(long count, Duration timeout) {
        long base = reported();
        long end = System.nanoTime() + timeout.toNanos();
        while (reported() - base < count) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError(name() + ": fewer than " + count + " transfers reported within "
                        + timeout.toMillis() + " ms; last lines: " + tail());
            }
            sleep(100);
        }
    }

    /** How many distinct ids the initiator has seen reported. */
    long reported() {
        return request("PING").num("ids");
    }

    /** The {@code DOWN} event of {@code peer} received after {@code from}. */
    EventFields awaitDown(int from, String peer, Duration timeout) {
        return EventFields.parse(await(from, l -> l.startsWith("E DOWN peer=" + peer + " "), timeout,
                "DOWN of " + peer));
    }

    /** The {@code FAIL} event of {@code peer} received after {@code from}. */
    EventFields awaitFail(int from, String peer, Duration timeout) {
        return EventFields.parse(await(from, l -> l.startsWith("E FAIL peer=" + peer + " "), timeout,
                "FAIL of " + peer));
    }

    /** Stops every session and returns their counters and block models. */
    Outcome stop() {
        int from = mark();
        request("STOP", drain.plusSeconds(30));
        Map<String, EventFields> stats = new LinkedHashMap<>();
        Map<String, String> models = new LinkedHashMap<>();
        List<String> lines = lines();
        for (String line : lines.subList(from, lines.size())) {
            if (line.startsWith("E STATS ")) {
                EventFields f = EventFields.parse(line);
                stats.put(f.get("peer"), f);
            } else if (line.startsWith("E MODEL ")) {
                EventFields f = EventFields.parse(line);
                models.put(f.get("peer"), line.substring(line.indexOf("blocks=") + 7));
            }
        }
        return new Outcome(stats, models);
    }

    /** Re-registers {@code peer} from its descriptor and starts a new phase of its session. */
    EventFields readd(String peer) {
        return request("READD " + peer, drain.plusSeconds(30));
    }

    /** Closes the initiator's transport (the program then exits); returns how long close took. */
    long closeTransport() {
        return request("CLOSE", Duration.ofSeconds(60)).num("closeMillis");
    }

    private String tail() {
        List<String> l = lines();
        return l.subList(Math.max(0, l.size() - 5), l.size()).toString();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
