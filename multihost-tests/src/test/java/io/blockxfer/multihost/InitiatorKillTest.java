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
 * Rule (d): the initiator's container is {@code docker kill}ed mid-stream. The three targets stay
 * healthy (alive, answering, their transports open) and accept a new initiator, whose transfers
 * complete with verified bytes.
 */
@Tag("multihost")
@ExtendWith(PeerHostsCondition.class)
@Timeout(300)
class InitiatorKillTest {

    private static final Duration DEADLINE = Duration.ofSeconds(10);

    @ParameterizedTest(name = "[d] {0}: targets survive a killed initiator and accept a new one")
    @MethodSource("io.blockxfer.multihost.BackendProfile#enabled")
    void killedInitiator(String backend) throws Exception {
        try (Testbed bed = Testbed.open(backend, "d-initiator", DEADLINE)) {
            List<TargetHost> targets = bed.targets(3);
            InitiatorHost first = bed.initiator("init1", Duration.ofSeconds(1));
            first.addAndStart(targets);
            first.awaitReported(300, Duration.ofSeconds(60));

            long t0 = System.nanoTime();
            first.kill();
            long killMillis = (System.nanoTime() - t0) / 1_000_000;
            for (TargetHost t : targets) {
                t.request("PING");
            }
            long pingMillis = (System.nanoTime() - t0) / 1_000_000;
            Thread.sleep(3_000); // let the targets' transports meet the dead connections
            for (TargetHost t : targets) {
                assertTrue(t.isRunning(), backend + ": " + t.name() + " died with the initiator");
                t.request("PING");
                t.fillAll(t.family() + 1);
            }
            InitiatorHost second = bed.initiator("init2", Duration.ofSeconds(1));
            second.addAndStart(targets);
            second.awaitReported(300, Duration.ofSeconds(60));
            long newMillis = (System.nanoTime() - t0) / 1_000_000;
            InitiatorHost.Outcome out = second.stop();

            long done = out.stats().values().stream().mapToLong(s -> s.num("done")).sum();
            FaultReport.row(backend, "d", "docker kill of the initiator", killMillis, -1, -1, "targets answered "
                    + pingMillis + " ms after the kill; a new initiator had 300 transfers done " + newMillis
                    + " ms after it (3 s pause included), " + done + " done in all, all verified");
            for (TargetHost t : targets) {
                assertHealthy(backend, out.stats().get(t.name()));
                assertModelHolds(backend, t, out.models().get(t.name()));
            }
        }
    }
}
