package io.blockxfer.tck;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Records the JFR event {@code jdk.VirtualThreadPinned} with no threshold while a body runs, and
 * describes each event: a virtual thread that parked or blocked while pinned to its carrier (with
 * native code, an upcall or a class initialiser on its stack).
 *
 * <p><b>Thread safety:</b> stateless; each call makes its own recording.
 */
final class PinningRecorder {

    /** What runs while recording. */
    @FunctionalInterface
    interface Body {
        void run() throws Exception;
    }

    private static final String PINNED = "jdk.VirtualThreadPinned";

    private PinningRecorder() {
    }

    /** Runs {@code body} and returns the pinned events it caused, each described in one line. */
    static List<String> record(Body body) throws Exception {
        Path file = Files.createTempFile("blockxfer-tck-pinning", ".jfr");
        try {
            try (Recording recording = new Recording()) {
                for (EventType type : FlightRecorder.getFlightRecorder().getEventTypes()) {
                    if (!type.getName().equals(PINNED)) {
                        recording.disable(type.getName()); // only the event looked for, and no recording cost
                    }
                }
                recording.enable(PINNED).withThreshold(Duration.ZERO).withStackTrace();
                recording.start();
                body.run();
                recording.stop();
                recording.dump(file);
            }
            List<String> events = new ArrayList<>();
            for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
                if (e.getEventType().getName().equals(PINNED)) {
                    events.add(describe(e));
                }
            }
            return events;
        } finally {
            delete(file);
        }
    }

    private static String describe(RecordedEvent e) {
        RecordedThread thread = e.getThread();
        StringBuilder s = new StringBuilder(thread == null ? "(no thread)" : thread.getJavaName());
        s.append(" pinned for ").append(e.getDuration().toNanos() / 1_000).append(" us");
        if (e.getStackTrace() != null) {
            s.append(" at");
            List<RecordedFrame> frames = e.getStackTrace().getFrames();
            for (int i = 0; i < Math.min(12, frames.size()); i++) {
                RecordedFrame f = frames.get(i);
                s.append(' ').append(f.getMethod().getType().getName()).append('.').append(f.getMethod().getName());
            }
        }
        return s.toString();
    }

    private static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            file.toFile().deleteOnExit();
        }
    }
}
