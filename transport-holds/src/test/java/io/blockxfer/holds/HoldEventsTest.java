package io.blockxfer.holds;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** JFR: holds created and ended (with their reason, blocks, bytes and time held), leases ended, messages refused. */
class HoldEventsTest {

    @Test
    void holdsAndLeasesAreRecordedWithWhyTheyEnded(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("holds.jfr");
        try (Pair p = new Pair(); Recording recording = new Recording()) {
            for (String e : List.of("HoldCreated", "HoldEnded", "LeaseEnded", "HoldMessageRefused")) {
                recording.enable("blockxfer." + e);
            }
            recording.start();
            Hold released = p.owner.create("holder", new int[] {1, 2}, Pair.TTL);
            Hold expired = p.owner.create("holder", new int[] {3}, Pair.TTL);
            Lease lease = p.holder.accept("owner", released.grant());
            p.exchange();
            lease.release();
            p.exchange();
            p.ownerClock.advance(Pair.TTL.plus(Duration.ofMillis(1)));
            p.owner.tick();
            p.holderTransport.sendNotification("owner", HoldMessage.release(true, expired.id()).encode());
            p.exchange();
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        Map<String, Long> byType = events.stream().collect(Collectors.groupingBy(e -> e.getEventType().getName(),
                Collectors.counting()));
        assertEquals(2, byType.get("blockxfer.HoldCreated"));
        assertEquals(1, byType.get("blockxfer.LeaseEnded"));
        assertEquals(1, byType.get("blockxfer.HoldMessageRefused"));
        List<String> ends = events.stream().filter(e -> e.getEventType().getName().equals("blockxfer.HoldEnded"))
                .map(e -> e.getString("reason") + " " + e.getInt("blocks") + " " + e.getLong("bytes")).sorted()
                .toList();
        assertEquals(List.of("EXPIRED 1 512", "RELEASED 2 1024"), ends);
    }
}
