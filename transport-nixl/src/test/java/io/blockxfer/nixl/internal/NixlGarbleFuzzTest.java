package io.blockxfer.nixl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.nixl.NixlProvider;
import io.blockxfer.tck.process.ChildJvm;
import io.blockxfer.transport.spi.Availability;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Adversarially garbled NIXL metadata (checksums recomputed) never crashes the process: the
 * blobs are offered to {@code connect} in a child JVM ({@link NixlGarbleFuzz}); a child that dies
 * counts as one crash at the blob it was on, and a new child goes on after it. The normal suite
 * runs {@value #DEFAULT_BLOBS} blobs; {@code -Dblockxfer.nixl.fuzz.blobs=10000} runs the long form.
 * The crash count must be zero.
 */
@Timeout(value = 3, unit = TimeUnit.HOURS)
class NixlGarbleFuzzTest {

    static final int DEFAULT_BLOBS = 300;
    /** How long a child may print nothing (it prints a line per blob) before it counts as hung. */
    private static final Duration LINE_WAIT = Duration.ofMinutes(5);

    @Test
    void garbledMetadataIsRejectedOrHarmlessAndNeverCrashesTheJvm() throws Exception {
        Availability a = new NixlProvider().availability();
        if (!a.isAvailable()) {
            if (io.blockxfer.tck.TckEnvironment.fromSystem().requires("nixl")) {
                fail("nixl required but unavailable: " + a.cause());
            }
            Assumptions.abort(a.cause());
        }
        int blobs = Integer.getInteger("blockxfer.nixl.fuzz.blobs", DEFAULT_BLOBS);
        List<String> crashes = new ArrayList<>();
        long[] totals = new long[4];
        int next = 0;
        while (next < blobs) {
            Run run = child(next, blobs);
            if (run.summary != null) {
                for (int i = 0; i < 4; i++) {
                    totals[i] += run.summary[i];
                }
                next = blobs;
            } else {
                crashes.add("blob " + run.last + " (exit " + run.exit + "): " + run.tail);
                next = run.last + 1;
            }
        }
        System.out.printf("garbled NIXL metadata: %d blobs, %d rejected, %d accepted (%d transfers done, %d failed),"
                + " %d crashes%n", blobs, totals[0], totals[1], totals[2], totals[3], crashes.size());
        assertEquals(0, crashes.size(), "child JVM crashes on garbled metadata, e.g. "
                + crashes.subList(0, Math.min(3, crashes.size())));
        assertTrue(totals[0] > blobs / 2, "most garbled blobs are rejected before NIXL sees them: " + totals[0]);
    }

    @SuppressWarnings("ArrayRecordComponent") // a child run's outcome, never compared or hashed
    private record Run(int last, int exit, long[] summary, String tail) {
    }

    /** Runs blobs {@code from} to {@code to} in a child JVM; its last blob, exit status and summary if it finished. */
    private static Run child(int from, int to) {
        int last = from;
        long[] summary = null;
        List<String> tail = new ArrayList<>();
        int exit;
        try (ChildJvm child = ChildJvm.builder(NixlGarbleFuzz.class).jvmArgs(List.of("-Xmx256m", "-XX:+UseSerialGC"))
                .forwardSystemProperties(key -> key.equals("blockxfer.natives.dir"))
                .environment("NIXL_LOG_LEVEL", "FATAL").environment("UCX_LOG_LEVEL", "fatal")
                .stderrTo(line -> { }).args(Integer.toString(from), Integer.toString(to)).start()) {
            for (Optional<String> next = child.nextLineIfAny(LINE_WAIT); next.isPresent();
                    next = child.nextLineIfAny(LINE_WAIT)) {
                String line = next.get();
                if (line.startsWith("AT ")) {
                    last = Integer.parseInt(line.substring(3).strip());
                } else if (line.startsWith("SUMMARY ")) {
                    String[] f = line.substring(8).strip().split(" ", -1);
                    summary = new long[] {Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]),
                            Long.parseLong(f[3])};
                } else {
                    tail.add(line);
                }
            }
            exit = child.awaitExit(LINE_WAIT);
            tail.addAll(child.stderrTail());
        }
        if (summary != null && exit != 0) {
            summary = null; // it finished the blobs but died in teardown: count the last blob
        }
        return new Run(last, exit, summary, String.join(" | ", tail.subList(Math.max(0, tail.size() - 8),
                tail.size())));
    }
}
