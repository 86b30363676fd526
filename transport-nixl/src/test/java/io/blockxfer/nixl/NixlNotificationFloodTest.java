package io.blockxfer.nixl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.nixl.churn.NixlChurn;
import io.blockxfer.tck.process.ChildJvm;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A long stream of notifications to a target that nobody polls leaves no growth of memory, threads
 * or file descriptors: {@link NixlChurn}'s {@code notifications} run (1 KiB messages, the target's
 * queue 64, its engine taking every message out of NIXL on its own thread) in a child JVM with a
 * fixed, pre-touched heap, so that RSS shows native memory. NIXL keeps every message it received
 * until it is asked for it; a target that did not drain it would grow by about 1.1 MiB per 1,000
 * messages. {@code scripts/nixl-churn notifications 1000000} is the long form (measured: flat after
 * the first 100,000, +4 KiB over the following 900,000).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class NixlNotificationFloodTest {

    @Test
    void aTargetNobodyPollsGrowsNeitherMemoryNorThreadsNorDescriptorsUnderAStreamOfMessages() {
        NixlTests.assumeNixl();
        int messages = Integer.getInteger("blockxfer.nixl.notify.flood", 200_000);
        // the first 100,000 take the JIT's code and the allocator's arenas to their size (about 10 MiB)
        int warmUp = 100_000;
        List<long[]> samples = new ArrayList<>();
        String slope = null;
        try (ChildJvm child = ChildJvm.builder(NixlChurn.class).name("notification-flood")
                .jvmArgs(List.of("-Xms128m", "-Xmx128m", "-XX:+AlwaysPreTouch"))
                .forwardSystemProperties(k -> k.startsWith("blockxfer.") && !k.startsWith("blockxfer.tck."))
                .args("notifications", Integer.toString(messages), Integer.toString(warmUp)).start()) {
            while (slope == null) {
                String line = child.nextLine(Duration.ofMinutes(2));
                String[] f = line.split(" ", -1);
                if (f[0].equals("SAMPLE")) {
                    samples.add(new long[] {Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]),
                            Long.parseLong(f[4])});
                } else if (f[0].equals("SLOPE")) {
                    slope = line;
                }
            }
            assertEquals(0, child.awaitExit(Duration.ofSeconds(30)), "the flood ended cleanly");
        }
        long[][] s = samples.toArray(new long[0][]);
        long[] mid = s[s.length / 2];
        long[] last = s[s.length - 1];
        double rssSlope = NixlChurn.slope(s, 3);
        System.out.printf(Locale.ROOT, "%d messages of 1 KiB to a target nobody polls after %d of warm-up: fds %d -> %d,"
                + " threads %d -> %d, RSS %d -> %d KiB from the middle on (%s: fds, threads, KiB per 1,000 messages)%n",
                messages, warmUp,
                mid[1], last[1], mid[2], last[2], mid[3], last[3], slope);
        for (int i = s.length / 2; i < s.length; i++) {
            assertTrue(s[i][1] <= mid[1] + 2, "file descriptors grew: " + mid[1] + " -> " + s[i][1]);
            assertEquals(mid[2], s[i][2], "threads changed over the stream");
        }
        assertTrue(rssSlope < 100, "RSS grew " + rssSlope + " KiB per 1,000 messages over the second half (a list"
                + " nobody drains grows by about 1,100)");
    }
}
