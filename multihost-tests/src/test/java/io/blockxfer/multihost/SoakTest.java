package io.blockxfer.multihost;

import static io.blockxfer.multihost.PeerAssertions.assertHealthy;
import static io.blockxfer.multihost.PeerAssertions.assertModelHolds;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Rule (e): three peers, continuous mixed writes and reads over random block sets for
 * {@code blockxfer.multihost.soakSeconds} (300 in CI), every completion verified: no failure, no
 * wrong byte, no id lost, none reported twice or to the wrong peer; afterwards every target's
 * memory matches the initiator's model.
 */
// full tier: the multi-host suite: peers in Docker containers of the project's engine and peer image (.ci/run
// sets both up; without them it skips); the fast tier runs the peer program in this JVM
// (PeerSessionLoopbackTest)
@Tag("full")
@Tag("multihost")
@ExtendWith(PeerHostsCondition.class)
@Timeout(1800)
class SoakTest {

    private static final Duration DEADLINE = Duration.ofSeconds(10);

    // the backends side by side: the soak waits on its schedule and checks ids and bytes, not timings
    // (junit-platform.properties)
    @Execution(ExecutionMode.CONCURRENT)
    @ParameterizedTest(name = "[e] {0}: soak of 3 peers, every completion verified, none lost or duplicated")
    @MethodSource("io.blockxfer.multihost.BackendProfile#enabled")
    void soak(String backend) throws Exception {
        Duration length = MultihostSettings.get().soak();
        try (Testbed bed = Testbed.open(backend, "e-soak", DEADLINE)) {
            List<TargetHost> targets = bed.targets(3);
            InitiatorHost init = bed.initiator("init", Duration.ofSeconds(10));
            init.addAndStart(targets);
            long t0 = System.nanoTime();
            long end = t0 + length.toNanos();
            int seen = 0;
            while (System.nanoTime() < end) {
                Thread.sleep(Math.min(2_000, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
                List<String> lines = init.lines();
                for (; seen < lines.size(); seen++) {
                    String l = lines.get(seen);
                    if (l.startsWith("E FAIL") || l.startsWith("E MISMATCH") || l.startsWith("E UNEXPECTED")
                            || l.startsWith("E ERR") || l.startsWith("E LOST")) {
                        fail(backend + ": after " + (System.nanoTime() - t0) / 1_000_000_000 + " s of soak: " + l);
                    }
                }
            }
            InitiatorHost.Outcome out = init.stop();
            double seconds = (System.nanoTime() - t0) / 1e9;
            long done = 0;
            long failed = 0;
            long bytes = 0;
            long verifiedBlocks = 0;
            long lost = 0;
            long dup = 0;
            for (EventFields s : out.stats().values()) {
                done += s.num("done");
                failed += s.num("failed");
                bytes += s.num("bytes");
                verifiedBlocks += s.num("verifiedBlocks");
                lost += s.num("lost");
                dup += s.num("dup");
            }
            FaultReport.row(backend, "e", String.format("soak of %d s, 3 targets", Math.round(seconds)), -1, -1, -1,
                    String.format("%d transfers done (%.0f/s), %d failed, %d lost, %d duplicated, %.1f GiB moved"
                            + " (%.1f MiB/s), %d blocks verified", done, done / seconds, failed, lost, dup,
                            bytes / (double) (1L << 30), bytes / seconds / (1 << 20), verifiedBlocks));
            for (TargetHost t : targets) {
                assertHealthy(backend, out.stats().get(t.name()));
                assertModelHolds(backend, t, out.models().get(t.name()));
            }
        }
    }
}
