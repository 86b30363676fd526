package io.blockxfer.multihost;

import static io.blockxfer.multihost.PeerAssertions.assertHealthy;
import static io.blockxfer.multihost.PeerAssertions.assertModelHolds;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Rule (d): the initiator's container is {@code docker kill}ed mid-stream. The three targets stay
 * healthy (alive, answering, their transports open) and accept a new initiator, whose transfers
 * complete with verified bytes.
 *
 * <p>One exception is known, and it is UCX's: over TCP every put and get is emulated with
 * messages, and a target that answers one of the dead initiator's last messages after its socket
 * failed is aborted by UCX ({@link PeerLog#emulatedRmaAbort}). A target that dies so is reported,
 * the survivors must still pass every check, and the case then ends as aborted (skipped) with the
 * reason, never as passed; a target that dies any other way fails it.
 */
// full tier: the multi-host suite: peers in Docker containers of the project's engine and peer image (.ci/run
// sets both up; without them it skips); the fast tier runs the peer program in this JVM
// (PeerSessionLoopbackTest)
@Tag("full")
@Tag("multihost")
@ExtendWith(PeerHostsCondition.class)
@Timeout(300)
class InitiatorKillTest {

    private static final Duration DEADLINE = Duration.ofSeconds(10);

    /** Where the one known way a target dies here comes from. */
    private static final String UPSTREAM = PeerLog.UCX_ABORT_REASON;

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
                t.answersOrDiedOfUcxAbort(backend + ": the initiator was killed");
            }
            long pingMillis = (System.nanoTime() - t0) / 1_000_000;
            Thread.sleep(3_000); // let the targets' transports meet the dead connections
            List<TargetHost> survivors = new ArrayList<>();
            Map<String, String> aborted = new LinkedHashMap<>();
            for (TargetHost t : targets) {
                Optional<String> abort = t.answersOrDiedOfUcxAbort(backend + ": the initiator was killed");
                if (abort.isPresent()) {
                    aborted.put(t.name(), abort.get());
                } else {
                    t.fillAll(t.family() + 1);
                    survivors.add(t);
                }
            }
            Assumptions.assumeFalse(survivors.isEmpty(), () -> backend + ": every target was aborted by UCX "
                    + UPSTREAM + ": " + aborted);
            InitiatorHost second = bed.initiator("init2", Duration.ofSeconds(1));
            second.addAndStart(survivors);
            second.awaitReported(300, Duration.ofSeconds(60));
            long newMillis = (System.nanoTime() - t0) / 1_000_000;
            InitiatorHost.Outcome out = second.stop();

            long done = out.stats().values().stream().mapToLong(s -> s.num("done")).sum();
            FaultReport.row(backend, "d", "docker kill of the initiator", killMillis, -1, -1, "targets answered "
                    + pingMillis + " ms after the kill; a new initiator had 300 transfers done " + newMillis
                    + " ms after it (3 s pause included), " + done + " done in all, all verified"
                    + (aborted.isEmpty() ? "" : "; aborted by UCX " + UPSTREAM + ": " + aborted.keySet()));
            for (TargetHost t : survivors) {
                assertHealthy(backend, out.stats().get(t.name()));
                assertModelHolds(backend, t, out.models().get(t.name()));
            }
            Assumptions.assumeTrue(aborted.isEmpty(), () -> backend + ": the survivors " + survivors
                    + " passed every check, but UCX aborted " + aborted + " " + UPSTREAM);
        }
    }
}
