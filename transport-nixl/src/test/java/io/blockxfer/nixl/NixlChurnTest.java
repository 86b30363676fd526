package io.blockxfer.nixl;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.nixl.churn.NixlChurn;
import java.io.IOException;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The short form of the churn soak ({@code scripts/nixl-churn} runs the long one): after a
 * warm-up, add/remove cycles of a live peer, restarts of a peer, and open/close cycles of a
 * transport leave no file descriptor and no thread behind. Before idle connections were kept,
 * each add/remove cycle left two established loopback sockets (4,000 descriptors over the 2,000
 * cycles here). RSS is printed, not asserted: in one shared JVM it moves with the heap and the JIT.
 */
// full tier: a leak soak (2,000 add/remove cycles, 40 restarts, 60 opens) whose flat descriptor and thread
// counts need the cycles; scripts/nixl-churn runs the long form
@Tag("full")
class NixlChurnTest {

    @BeforeEach
    void nixl() {
        NixlTests.assumeNixl();
    }

    private static long[][] churn(String what, int warmUp, int cycles) throws IOException {
        try (NixlChurn.Run run = new NixlChurn.Run(NixlTests.PROVIDER, what, null)) {
            run.cycles(warmUp, 1);
            long[][] s = run.cycles(cycles, 20);
            System.out.printf(Locale.ROOT, "churn %s: %d cycles after %d warm-up: fds %d -> %d, threads %d -> %d,"
                    + " RSS %d -> %d KiB (second-half slope per 1,000 cycles: %.1f fds, %.1f threads, %.0f KiB)%n",
                    what, cycles, warmUp, s[0][1], s[s.length - 1][1], s[0][2], s[s.length - 1][2], s[0][3],
                    s[s.length - 1][3], NixlChurn.slope(s, 1), NixlChurn.slope(s, 2), NixlChurn.slope(s, 3));
            return s;
        }
    }

    private static void assertFlat(long[][] s, int col, long slack, String what) {
        long first = s[0][col];
        long max = first;
        for (long[] sample : s) {
            max = Math.max(max, sample[col]);
        }
        assertTrue(max - first <= slack, what + " grew from " + first + " to " + max + " (allowed: " + slack + ")");
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void addingAndRemovingALivePeerLeavesNoSocketsOrThreads() throws IOException {
        long[][] s = churn("peers", 200, 2_000);
        assertFlat(s, 1, 2, "open file descriptors over 2,000 addPeer/removePeer cycles");
        assertFlat(s, 2, 0, "threads over 2,000 addPeer/removePeer cycles");
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void aPeerThatRestartsLeavesNoSocketsOrThreads() throws IOException {
        long[][] s = churn("restarts", 5, 40);
        assertFlat(s, 1, 2, "open file descriptors over 40 peer restarts");
        assertFlat(s, 2, 0, "threads over 40 peer restarts");
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void openingAndClosingTransportsLeavesNoDescriptorsOrThreads() throws IOException {
        long[][] s = churn("transports", 10, 60);
        assertFlat(s, 1, 0, "open file descriptors over 60 open/close cycles");
        assertFlat(s, 2, 0, "threads over 60 open/close cycles");
    }
}
