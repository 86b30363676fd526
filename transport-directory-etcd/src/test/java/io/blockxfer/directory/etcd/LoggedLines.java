package io.blockxfer.directory.etcd;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The records a {@code java.util.logging} logger publishes while this is open, each as
 * {@code "LEVEL message"}; closing stops the capture.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
final class LoggedLines extends Handler implements AutoCloseable {

    private final Logger logger;
    private final List<String> lines = new CopyOnWriteArrayList<>();

    private LoggedLines(Logger logger) {
        this.logger = logger;
    }

    /** Starts capturing what the logger of {@code type} publishes. */
    static LoggedLines of(Class<?> type) {
        LoggedLines captured = new LoggedLines(Logger.getLogger(type.getName()));
        captured.logger.addHandler(captured);
        return captured;
    }

    /** The lines captured so far. */
    List<String> lines() {
        return List.copyOf(lines);
    }

    @Override
    public void publish(LogRecord record) {
        lines.add(record.getLevel() + " " + record.getMessage());
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        logger.removeHandler(this);
    }
}
