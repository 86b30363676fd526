package io.blockxfer.multihost;

import static io.blockxfer.multihost.PeerAssertions.assertExactlyOnce;
import static io.blockxfer.multihost.PeerAssertions.assertHealthy;
import static io.blockxfer.multihost.PeerAssertions.assertModelHolds;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Rule (b): one of three peers is cut off ({@code docker network disconnect --force}). Its
 * transfers fail within the configured deadline (3 s, plus 2 s for polling and a loaded machine),
 * the others complete verified, and nothing hangs: stopping and closing the initiator return in
 * bounded time. The cut peer still answers on its control channel, and its memory holds what the
 * initiator believes it holds.
 */
// full tier: the multi-host suite: peers in Docker containers of the project's engine and peer image (.ci/run
// sets both up; without them it skips); the fast tier runs the peer program in this JVM
// (PeerSessionLoopbackTest)
@Tag("full")
@Tag("multihost")
@ExtendWith(PeerHostsCondition.class)
@Timeout(300)
class NetworkCutTest {

    private static final Duration DEADLINE = Duration.ofSeconds(3);
    private static final long SLACK_MILLIS = 2_000;

    @ParameterizedTest(name = "[b] {0}: a cut-off peer''s transfers fail within the deadline, nothing hangs")
    @MethodSource("io.blockxfer.multihost.BackendProfile#enabled")
    void cutOffPeer(String backend) throws Exception {
        try (Testbed bed = Testbed.open(backend, "b-cut", DEADLINE)) {
            List<TargetHost> targets = bed.targets(3);
            InitiatorHost init = bed.initiator("init", Duration.ofSeconds(1));
            init.addAndStart(targets);
            init.awaitReported(300, Duration.ofSeconds(60));
            TargetHost victim = targets.get(2);

            int mark = init.mark();
            long t0 = System.currentTimeMillis();
            victim.disconnect();
            long commandMillis = System.currentTimeMillis() - t0;
            EventFields fail = init.awaitFail(mark, victim.name(), DEADLINE.plusSeconds(20));
            EventFields down = init.awaitDown(mark, victim.name(), DEADLINE.plusSeconds(20));
            init.awaitReported(300, Duration.ofSeconds(30));
            long s0 = System.nanoTime();
            InitiatorHost.Outcome out = init.stop();
            long stopMillis = (System.nanoTime() - s0) / 1_000_000;

            long first = fail.num("at") - t0;
            long all = down.num("at") - t0;
            EventFields v = out.stats().get(victim.name());
            for (TargetHost t : targets) {
                // the cut-off peer too: the control channel does not use its network
                assertModelHolds(backend, t, out.models().get(t.name()));
            }
            long closeMillis = init.closeTransport();
            FaultReport.row(backend, "b", "docker network disconnect of 1 of 3 targets (deadline "
                    + DEADLINE.toMillis() + " ms)", commandMillis, first, all,
                    "victim: " + v.num("failed") + " failed; stop " + stopMillis + " ms, initiator close "
                            + closeMillis + " ms; others: " + PeerKillTest.doneOfOthers(out, victim)
                            + " done, all verified");
            long bound = DEADLINE.toMillis() + SLACK_MILLIS;
            assertTrue(all - commandMillis <= bound, backend + ": the cut-off peer's transfers took " + all
                    + " ms to fail, " + commandMillis + " ms of which the command took (bound " + bound
                    + " ms after it)");
            assertTrue(v.num("failed") > 0, backend + ": nothing was in flight to the cut-off peer: " + v);
            assertExactlyOnce(backend, v);
            for (TargetHost t : targets) {
                if (t != victim) {
                    assertHealthy(backend, out.stats().get(t.name()));
                }
            }
            assertTrue(closeMillis <= 7_000, backend + ": closing the initiator took " + closeMillis + " ms");
        }
    }
}
