package io.blockxfer.multihost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The soak's schedule in this JVM with loopback targets, for what the service soak's verdict rests
 * on besides ids and bytes: a peer whose transfers never complete is a stall, even though its
 * transfers only ever fail when the churn removes it (so no count of ids or bytes shows it), and
 * healthy peers are not.
 */
@Timeout(120)
class SoakConductorLoopbackTest {

    @TempDir
    Path dir;

    @Test
    void aPeerThatCompletesNothingIsAStallAndItsHealthyNeighboursAreNot() throws Exception {
        SoakSettings settings = SoakSettings.parse(new String[] {"--backend", "loopback", "--seconds", "10",
            "--report", dir.toString(), "--blocks", "64", "--block-length", "4096", "--kill-every-ms", "0",
            "--window-ms", "1500"});
        List<TargetInJvm> targets = new ArrayList<>();
        TransportConfig config = TransportConfig.builder(RegionSpec.allocate(settings.initiatorBlocks(),
                settings.blockLength())).transport("loopback").transferTimeout(settings.transferTimeout()).build();
        try (DataTransport initiator = Transports.open(config);
                SoakLog log = new SoakLog(dir.resolve("soak.log"));
                SoakConductor conductor = new SoakConductor(settings, initiator, (name, family) -> {
                    TargetInJvm t = TargetInJvm.open("loopback", name, settings.targetBlocks(),
                            settings.blockLength(), settings.transferTimeout(), settings.transportOptions(), family);
                    targets.add(t);
                    return t;
                }, log)) {
            conductor.start();
            targets.get(2).faults().stall(true); // t3 takes transfers and never completes them
            conductor.run(Duration.ofMillis(6_500), () -> { });
            conductor.finish();
            conductor.closeTargets();

            assertTrue(conductor.stalls >= 2, "t3 stalled for 4 windows, seen " + conductor.stalls + ": "
                    + conductor.anomalies());
            assertTrue(conductor.anomalies().stream().anyMatch(a -> a.startsWith("t3 (t3#1) verified no transfer")),
                    conductor.anomalies().toString());
            assertTrue(conductor.anomalies().stream().noneMatch(a -> a.startsWith("t1 ") || a.startsWith("t2 ")),
                    "healthy peers are not stalls: " + conductor.anomalies());
            assertTrue(conductor.removes > 10 && conductor.adds > 10, "the churn ran");
            SoakTally t = conductor.tally();
            assertEquals(0, t.lost + t.dup + t.foreign + t.mismatches, t.summary());
            assertEquals(t.submitted, t.done + t.failed, t.summary());
        }
    }
}
