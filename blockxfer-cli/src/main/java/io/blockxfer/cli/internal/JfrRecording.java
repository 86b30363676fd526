package io.blockxfer.cli.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.util.List;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * A JFR recording of a command's run: the JDK's {@code default} profile plus every blockxfer event
 * with the settings of {@code config/blockxfer.jfc} (completed transfers sampled at 1000/s, every
 * failure, cancel and peer change), written to a file when the run ends.
 *
 * <p><b>Thread safety:</b> not thread-safe; one per command.
 */
public final class JfrRecording implements AutoCloseable {

    private static final List<String> EVENTS = List.of("TransferCompleted", "TransferFailed", "TransferCancel",
            "PeerRegistration", "PeerRemoved", "PeerFailure");

    private final Recording recording;
    private final Path file;

    private JfrRecording(Recording recording, Path file) {
        this.recording = recording;
        this.file = file;
    }

    /** Starts recording; {@link #close()} writes {@code file}. */
    public static JfrRecording start(Path file) {
        try {
            Recording r = new Recording(Configuration.getConfiguration("default"));
            r.setName("blockxfer");
            for (String event : EVENTS) {
                r.enable("blockxfer." + event).withoutThreshold();
            }
            r.enable("blockxfer.TransferCompleted").with("throttle", "1000/s");
            r.start();
            return new JfrRecording(r, file);
        } catch (IOException | ParseException | IllegalStateException | SecurityException e) {
            throw new CliException("could not start a JFR recording: " + e.getMessage());
        }
    }

    /** Stops the recording and writes the file. */
    @Override
    public void close() {
        try (recording) {
            recording.stop();
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            recording.dump(file);
        } catch (IOException | IllegalStateException e) {
            throw new CliException("could not write the JFR recording to " + file + ": " + e.getMessage());
        }
    }
}
