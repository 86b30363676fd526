package io.blockxfer.nixl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.nixl.NixlProvider;
import io.blockxfer.transport.spi.Availability;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
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

    private static Run child(int from, int to) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-Xmx256m");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-Dblockxfer.natives.dir=" + System.getProperty("blockxfer.natives.dir", ""));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(NixlGarbleFuzz.class.getName());
        cmd.add(Integer.toString(from));
        cmd.add(Integer.toString(to));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("NIXL_LOG_LEVEL", "FATAL");
        pb.environment().put("UCX_LOG_LEVEL", "fatal");
        Process p = pb.start();
        p.getOutputStream().close();
        int last = from;
        long[] summary = null;
        List<String> tail = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("AT ")) {
                    last = Integer.parseInt(line.substring(3).strip());
                } else if (line.startsWith("SUMMARY ")) {
                    String[] f = line.substring(8).strip().split(" ", -1);
                    summary = new long[] {Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]),
                            Long.parseLong(f[3])};
                } else {
                    tail.add(line);
                    if (tail.size() > 8) {
                        tail.removeFirst();
                    }
                }
            }
        }
        int exit = p.waitFor();
        if (summary != null && exit != 0) {
            summary = null; // it finished the blobs but died in teardown: count the last blob
        }
        return new Run(last, exit, summary, String.join(" | ", tail));
    }
}
