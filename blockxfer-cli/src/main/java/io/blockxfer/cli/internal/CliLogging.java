package io.blockxfer.cli.internal;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.jspecify.annotations.Nullable;

/**
 * The logging of the {@code blockxfer} process, set up by its {@code main} before anything else
 * runs. Everything logs into {@code java.util.logging}: blockxfer's own modules through
 * {@link System.Logger}, gRPC directly, Netty, Vert.x and jetcd through SLF4J (the
 * {@code slf4j-jdk14} provider). One handler writes each record as one line on standard error,
 * {@code LEVEL LOGGER: MESSAGE}, e.g. {@code warn io.blockxfer.directory.Membership: ...}, an
 * exception as its one-line description after the message, its stack trace on further lines only
 * when the environment variable {@code BLOCKXFER_DEBUG} is set (as for the command's errors).
 *
 * <p>By default ({@link #install()}) loggers under {@value #OWN} print their warnings and errors
 * and every other logger prints nothing, so a user sees blockxfer's own lines only;
 * {@link #setLevel(Level)} (the command's {@code --log-level}) puts every logger, blockxfer's and
 * the libraries', at one level. {@link #close()} puts back the handlers and levels it found.
 *
 * <p><b>Thread safety:</b> thread-safe; the methods of an instance synchronize on it. The logging
 * it sets is the process's: one instance at a time.
 */
public final class CliLogging implements AutoCloseable {

    /** The root of blockxfer's own loggers. */
    public static final String OWN = "io.blockxfer";

    /** The level of blockxfer's own loggers by default. */
    public static final Level OWN_DEFAULT = Level.WARNING;

    /** The level of every other logger by default. */
    public static final Level OTHERS_DEFAULT = Level.OFF;

    // strong references: java.util.logging holds loggers weakly, and a collected logger forgets its level
    private static final Logger ROOT = Logger.getLogger("");
    private static final Logger BLOCKXFER = Logger.getLogger(OWN);

    private final Handler console;
    private final List<Handler> replaced;
    private final @Nullable Level rootBefore;
    private final @Nullable Level ownBefore;

    private CliLogging(Handler console) {
        this.console = console;
        this.replaced = List.of(ROOT.getHandlers());
        this.rootBefore = ROOT.getLevel();
        this.ownBefore = BLOCKXFER.getLevel();
    }

    /**
     * Replaces the root logger's handlers by one line handler on the standard error of now, and
     * sets the default levels: {@value #OWN} at {@link #OWN_DEFAULT}, everything else
     * {@link #OTHERS_DEFAULT}.
     */
    public static CliLogging install() {
        ConsoleHandler console = new ConsoleHandler();
        console.setLevel(Level.ALL);
        console.setFormatter(new LineFormatter(System.getenv("BLOCKXFER_DEBUG") != null));
        CliLogging logging = new CliLogging(console);
        logging.replaced.forEach(ROOT::removeHandler);
        ROOT.addHandler(console);
        logging.apply(OWN_DEFAULT, OTHERS_DEFAULT);
        return logging;
    }

    /** Every logger, blockxfer's and the libraries', at {@code level}. */
    public synchronized void setLevel(Level level) {
        apply(level, level);
    }

    private synchronized void apply(Level own, Level others) {
        BLOCKXFER.setLevel(own);
        ROOT.setLevel(others);
    }

    /** Puts back the root logger's handlers and level, and the level of {@value #OWN}, as found. */
    @Override
    public synchronized void close() {
        ROOT.removeHandler(console);
        console.flush();
        replaced.forEach(ROOT::addHandler);
        ROOT.setLevel(rootBefore);
        BLOCKXFER.setLevel(ownBefore);
    }

    /**
     * The short name of {@code level} as the command's {@code --log-level} spells it: {@code error},
     * {@code warn}, {@code info}, {@code debug} (config and fine) or {@code trace} (finer and finest).
     */
    static String shortName(Level level) {
        int v = level.intValue();
        if (v >= Level.SEVERE.intValue()) {
            return "error";
        } else if (v >= Level.WARNING.intValue()) {
            return "warn";
        } else if (v >= Level.INFO.intValue()) {
            return "info";
        } else if (v >= Level.FINE.intValue()) {
            return "debug";
        }
        return "trace";
    }

    /**
     * One record, one line: {@code LEVEL LOGGER: MESSAGE}, the exception's one-line description
     * after the message, and its stack trace on further lines when asked for.
     *
     * <p><b>Thread safety:</b> immutable.
     */
    static final class LineFormatter extends Formatter {

        private final boolean stackTraces;

        LineFormatter(boolean stackTraces) {
            this.stackTraces = stackTraces;
        }

        @Override
        public String format(LogRecord record) {
            StringBuilder line = new StringBuilder().append(shortName(record.getLevel())).append(' ')
                    .append(record.getLoggerName() == null ? "-" : record.getLoggerName()).append(": ")
                    .append(ErrorHandlers.oneLine(formatMessage(record)));
            Throwable thrown = record.getThrown();
            if (thrown != null) {
                line.append(": ").append(ErrorHandlers.oneLine(thrown.toString()));
            }
            line.append(System.lineSeparator());
            if (thrown != null && stackTraces) {
                StringWriter trace = new StringWriter();
                thrown.printStackTrace(new PrintWriter(trace));
                line.append(trace);
            }
            return line.toString();
        }
    }
}
