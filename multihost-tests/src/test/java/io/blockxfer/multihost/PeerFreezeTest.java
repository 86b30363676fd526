package io.blockxfer.multihost;

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
 * Rule (c): one of three peers is frozen ({@code docker pause}: its processes stop, its kernel
 * still acknowledges TCP). Its transfers fail within the stall deadline (3 s, plus 2 s slack);
 * after {@code docker unpause}, re-adding it works: the new phase completes with verified bytes.
 */
// full tier: the multi-host suite: peers in Docker containers of the project's engine and peer image (.ci/run
// sets both up; without them it skips); the fast tier runs the peer program in this JVM
// (PeerSessionLoopbackTest)
@Tag("full")
@Tag("multihost")
@ExtendWith(PeerHostsCondition.class)
@Timeout(300)
class PeerFreezeTest {

    private static final Duration DEADLINE = Duration.ofSeconds(3);
    private static final long SLACK_MILLIS = 2_000;

    @ParameterizedTest(name = "[c] {0}: a frozen peer''s transfers fail within the deadline; re-adding it works")
    @MethodSource("io.blockxfer.multihost.BackendProfile#enabled")
    void frozenPeer(String backend) throws Exception {
        try (Testbed bed = Testbed.open(backend, "c-pause", DEADLINE)) {
            List<TargetHost> targets = bed.targets(3);
            InitiatorHost init = bed.initiator("init", Duration.ofSeconds(1));
            init.addAndStart(targets);
            init.awaitReported(300, Duration.ofSeconds(60));
            TargetHost victim = targets.get(0);

            int mark = init.mark();
            long t0 = System.currentTimeMillis();
            victim.pause();
            long commandMillis = System.currentTimeMillis() - t0;
            EventFields fail = init.awaitFail(mark, victim.name(), DEADLINE.plusSeconds(20));
            EventFields down = init.awaitDown(mark, victim.name(), DEADLINE.plusSeconds(20));
            long first = fail.num("at") - t0;
            long all = down.num("at") - t0;

            victim.unpause();
            long r0 = System.nanoTime();
            int readdMark = init.mark();
            init.readd(victim.name());
            EventFields phase1 = EventFields.parse(init.await(readdMark,
                    l -> l.startsWith("E STATS peer=" + victim.name() + " "), Duration.ofSeconds(5), "phase 1 STATS"));
            init.await(readdMark, l -> l.startsWith("E PROGRESS peer=" + victim.name() + " phase=2 ")
                    && EventFields.parse(l).num("done") >= 100, Duration.ofSeconds(60), "100 transfers after re-add");
            long readdMillis = (System.nanoTime() - r0) / 1_000_000;
            InitiatorHost.Outcome out = init.stop();

            EventFields v = out.stats().get(victim.name());
            FaultReport.row(backend, "c", "docker pause of 1 of 3 targets (deadline " + DEADLINE.toMillis()
                    + " ms)", commandMillis, first, all,
                    "victim: " + phase1.num("failed") + " failed; after unpause + re-add: " + v.num("done")
                            + " done, all verified (100 reached in " + readdMillis + " ms); others: "
                            + PeerKillTest.doneOfOthers(out, victim) + " done, all verified");
            long bound = DEADLINE.toMillis() + SLACK_MILLIS;
            assertTrue(all - commandMillis <= bound, backend + ": the frozen peer's transfers took " + all
                    + " ms to fail, " + commandMillis + " ms of which the command took (bound " + bound
                    + " ms after it)");
            assertTrue(phase1.num("failed") > 0, backend + ": nothing was in flight to the frozen peer: " + phase1);
            PeerAssertions.assertExactlyOnce(backend, phase1);
            assertTrue(v.get("phase").equals("2"), "the victim's last STATS is of phase 2: " + v);
            for (TargetHost t : targets) {
                assertHealthy(backend, out.stats().get(t.name()));
                assertModelHolds(backend, t, out.models().get(t.name()));
            }
        }
    }
}
