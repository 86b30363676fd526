package io.blockxfer.transport.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.CancelMode;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.TransportObserver;
import io.blockxfer.transport.testing.ScriptedEngine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** JFR events, the observer hook and logging, checked on a transport whose outcomes the test decides. */
class ObservabilityTest {

    private final PeerDescriptor peer = new PeerDescriptor("scripted", "", 4096, 16, 64, new byte[] {1});

    private static TransportConfig config(TransportObserver observer) {
        return TransportConfig.builder(RegionSpec.allocate(16, 64)).agentName("obs")
                .transferTimeout(Duration.ofSeconds(30)).closeTimeout(Duration.ZERO).observer(observer).build();
    }

    @Test
    void aRecordingHoldsEveryKindOfEventWithItsFields(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("blockxfer.jfr");
        TransportConfig config = config(TransportObserver.NONE);
        ScriptedEngine engine = new ScriptedEngine(config);
        long done;
        long read;
        try (Recording recording = new Recording()) {
            for (String name : List.of("TransferSubmitted", "TransferCompleted", "TransferFailed", "TransferCancel",
                    "PeerRegistration", "PeerRemoved", "PeerFailure")) {
                recording.enable("blockxfer." + name).withoutThreshold().with("throttle", "off");
            }
            recording.start();
            try (ManagedTransport t = new ManagedTransport(engine, config, EnumSet.of(Capability.READ))) {
                t.addPeer("p", peer);
                done = t.writeBlocks("p", new int[] {1, 2}, new int[] {3, 4});
                read = t.readBlocks("p", new int[] {5}, new int[] {6});
                long cancelled = t.writeBlocks("p", new int[] {7}, new int[] {7});
                engine.transfers.get(0).status = ScriptedEngine.DONE;
                engine.transfers.get(1).status = ScriptedEngine.FAILED;
                t.poll("p");
                t.cancel(new long[] {cancelled}, CancelMode.WAIT);
                t.writeBlocks("p", new int[] {8}, new int[] {8});
                t.removePeer("p");
                assertTrue(done >= 0 && read >= 0);
            }
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().startsWith("blockxfer.")).toList();
        Map<String, List<RecordedEvent>> byName = events.stream()
                .collect(Collectors.groupingBy(e -> e.getEventType().getName()));
        assertEquals(4, byName.get("blockxfer.TransferSubmitted").size(), byName.keySet().toString());
        RecordedEvent first = byName.get("blockxfer.TransferSubmitted").get(0);
        assertEquals("scripted", first.getString("backend"));
        assertEquals("obs", first.getString("agent"));
        assertEquals("p", first.getString("peer"));
        assertEquals("WRITE", first.getString("op"));
        assertEquals(2, first.getInt("blocks"));
        assertEquals(128, first.getLong("bytes"));
        List<RecordedEvent> completed = byName.get("blockxfer.TransferCompleted");
        assertEquals(1, completed.size());
        assertEquals(done, completed.get(0).getLong("transferId"));
        assertTrue(completed.get(0).getDuration("latency").toNanos() > 0);
        List<RecordedEvent> failed = byName.get("blockxfer.TransferFailed");
        assertEquals(3, failed.size(), "the failed READ and the two transfers ended by the removal");
        assertEquals("READ", failed.get(0).getString("op"));
        assertEquals(read, failed.get(0).getLong("transferId"));
        RecordedEvent cancel = byName.get("blockxfer.TransferCancel").get(0);
        assertEquals("WAIT", cancel.getString("mode"));
        assertEquals(1, cancel.getInt("stillInFlight"));
        RecordedEvent registration = byName.get("blockxfer.PeerRegistration").get(0);
        assertEquals("published", registration.getString("outcome"));
        assertEquals(16, registration.getInt("blocks"));
        RecordedEvent removed = byName.get("blockxfer.PeerRemoved").get(0);
        assertEquals("removed", removed.getString("reason"));
        assertEquals(2, removed.getInt("endedTransfers"));
        RecordedEvent failing = byName.get("blockxfer.PeerFailure").get(0);
        assertTrue(failing.getBoolean("failing"));
    }

    @Test
    void theObserverSeesTransfersAndItsFailuresNeverReachTheCaller() {
        List<String> calls = new CopyOnWriteArrayList<>();
        TransportObserver observer = new TransportObserver() {
            @Override
            public void transferSubmitted(String peerId, long id, TransferOp op, int blocks, long bytes) {
                calls.add("submit " + peerId + " " + op + " " + blocks + " " + bytes);
                throw new IllegalStateException("observer bug");
            }

            @Override
            public void transferEnded(String peerId, long id, TransferOp op, int blocks, long bytes, long latency,
                    boolean success) {
                calls.add("end " + success);
            }

            @Override
            public boolean wantsNativeTelemetry() {
                return true;
            }

            @Override
            public void peerRegistered(String peerId, int blocks, long nanos, boolean published) {
                calls.add("registered " + published);
            }
        };
        TransportConfig config = config(observer);
        ScriptedEngine engine = new ScriptedEngine(config);
        try (ManagedTransport t = new ManagedTransport(engine, config, EnumSet.noneOf(Capability.class))) {
            t.addPeer("p", peer);
            long id = t.writeBlocks("p", new int[] {0, 1, 2}, new int[] {0, 1, 2});
            engine.last().status = ScriptedEngine.DONE;
            assertEquals(PollResult.of(new long[] {id}, new long[0]), t.poll("p"));
        }
        assertEquals(List.of("registered true", "submit p WRITE 3 192", "end true"), calls);
    }

    @Test
    void aFailingPeerIsLoggedOncePerChangeOfState() {
        Logger logger = Logger.getLogger(ManagedTransport.class.getName());
        List<LogRecord> records = new ArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                    records.add(record);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.addHandler(handler);
        TransportConfig config = config(TransportObserver.NONE);
        ScriptedEngine engine = new ScriptedEngine(config);
        try (ManagedTransport t = new ManagedTransport(engine, config, EnumSet.noneOf(Capability.class))) {
            t.addPeer("p", peer);
            engine.submitFailure = new IllegalStateException("endpoint closed");
            for (int i = 0; i < 100; i++) {
                t.writeBlocks("p", new int[] {0}, new int[] {0});
            }
            t.poll("p");
            assertEquals(1, records.size(), records.stream().map(LogRecord::getMessage).toList().toString());
            engine.submitFailure = null;
            t.writeBlocks("p", new int[] {0}, new int[] {0});
            engine.last().status = ScriptedEngine.DONE;
            t.poll("p");
            engine.submitFailure = new IllegalStateException("endpoint closed again");
            for (int i = 0; i < 100; i++) {
                t.writeBlocks("p", new int[] {0}, new int[] {0});
            }
            assertEquals(2, records.size(), "one more warning after the peer recovered and failed again");
        } finally {
            logger.removeHandler(handler);
        }
        Function<LogRecord, String> text = r -> java.text.MessageFormat.format(r.getMessage(), r.getParameters());
        assertTrue(text.apply(records.get(0)).contains("peer 'p' is failing: WRITE submit failed"),
                text.apply(records.get(0)));
    }
}
