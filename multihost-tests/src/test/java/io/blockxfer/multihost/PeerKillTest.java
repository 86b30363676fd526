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
 * Rule (a): an initiator streams writes and reads to three peers; one is {@code docker kill}ed.
 * Its transfers in flight fail within 5 s, detected by the transport itself (the deadline is 10 s),
 * and the other two complete with verified bytes.
 */
// full tier: the multi-host suite: peers in Docker containers of the project's engine and peer image (.ci/run
// sets both up; without them it skips); the fast tier runs the peer program in this JVM
// (PeerSessionLoopbackTest)
@Tag("full")
@Tag("multihost")
@ExtendWith(PeerHostsCondition.class)
@Timeout(300)
class PeerKillTest {

    private static final Duration DEADLINE = Duration.ofSeconds(10);
    private static final long BOUND_MILLIS = 5_000;

    @ParameterizedTest(name = "[a] {0}: a killed peer''s transfers fail within 5 s, the others complete verified")
    @MethodSource("io.blockxfer.multihost.BackendProfile#enabled")
    void killedPeer(String backend) throws Exception {
        try (Testbed bed = Testbed.open(backend, "a-kill", DEADLINE)) {
            List<TargetHost> targets = bed.targets(3);
            InitiatorHost init = bed.initiator("init", Duration.ofSeconds(1));
            init.addAndStart(targets);
            init.awaitReported(300, Duration.ofSeconds(60));
            TargetHost victim = targets.get(1);

            int mark = init.mark();
            long t0 = System.currentTimeMillis();
            victim.kill();
            long commandMillis = System.currentTimeMillis() - t0;
            EventFields fail = init.awaitFail(mark, victim.name(), DEADLINE.plusSeconds(10));
            EventFields down = init.awaitDown(mark, victim.name(), DEADLINE.plusSeconds(10));
            init.awaitReported(300, Duration.ofSeconds(30));
            InitiatorHost.Outcome out = init.stop();

            long first = fail.num("at") - t0;
            long all = down.num("at") - t0;
            EventFields v = out.stats().get(victim.name());
            FaultReport.row(backend, "a", "docker kill of 1 of 3 targets", commandMillis, first, all,
                    "victim: " + v.num("failed") + " failed, " + v.num("done") + " done; others: "
                            + doneOfOthers(out, victim) + " done, all verified");
            assertTrue(all <= BOUND_MILLIS, backend + ": the killed peer's transfers took " + all
                    + " ms to fail (bound " + BOUND_MILLIS + " ms)");
            assertTrue(v.num("failed") > 0, backend + ": nothing was in flight to the killed peer: " + v);
            assertExactlyOnce(backend, v);
            for (TargetHost t : targets) {
                if (t != victim) {
                    assertHealthy(backend, out.stats().get(t.name()));
                    assertModelHolds(backend, t, out.models().get(t.name()));
                }
            }
        }
    }

    static long doneOfOthers(InitiatorHost.Outcome out, TargetHost victim) {
        return out.stats().entrySet().stream().filter(e -> !e.getKey().equals(victim.name()))
                .mapToLong(e -> e.getValue().num("done")).sum();
    }
}
