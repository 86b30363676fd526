package io.blockxfer.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

/**
 * The command's logging ({@link CliLogging}) in this JVM, on a captured standard error: by default
 * blockxfer's own warnings and errors show, one line each, and nothing of a library nor blockxfer's
 * info; a level puts every logger at it; closing puts back what was there. The line format, and the
 * level names {@code --log-level} takes.
 */
class CliLoggingTest {

    // strong references while a test runs: java.util.logging holds loggers weakly
    private static final Logger LIBRARY = Logger.getLogger("io.grpc.internal.SomeClass");

    @Test
    void byDefaultOnlyBlockxfersOwnWarningsAndErrorsShow() {
        List<String> lines = logged(null);
        assertEquals(List.of("warn io.blockxfer.directory.Membership: membership 'm' lost the directory (gone): "
                        + "java.io.IOException: reset by peer",
                "error io.blockxfer.directory.Membership: failed"), lines);
    }

    @Test
    void aLevelPutsEveryLoggerAtIt() {
        List<String> lines = logged(Level.FINE);
        assertEquals(List.of("warn io.blockxfer.directory.Membership: membership 'm' lost the directory (gone): "
                        + "java.io.IOException: reset by peer",
                "error io.blockxfer.directory.Membership: failed",
                "info io.blockxfer.directory.Membership: published",
                "warn io.grpc.internal.SomeClass: a library's warning",
                "debug io.grpc.internal.SomeClass: a library's debug line: 7"), lines);
    }

    @Test
    void closingPutsBackTheHandlersAndLevelsItFound() {
        Logger root = Logger.getLogger("");
        List<?> handlers = List.of(root.getHandlers());
        Level rootLevel = root.getLevel();
        Level ownLevel = Logger.getLogger(CliLogging.OWN).getLevel();
        logged(Level.ALL);
        assertEquals(handlers, List.of(root.getHandlers()));
        assertEquals(rootLevel, root.getLevel());
        assertEquals(ownLevel, Logger.getLogger(CliLogging.OWN).getLevel());
    }

    @Test
    void aStackTraceFollowsTheOneLineDescriptionOnlyWhenAskedFor() {
        LogRecord record = new LogRecord(Level.WARNING, "closing failed");
        record.setLoggerName("io.blockxfer.x");
        record.setThrown(new IOException("gone"));
        assertEquals("warn io.blockxfer.x: closing failed: java.io.IOException: gone" + System.lineSeparator(),
                new CliLogging.LineFormatter(false).format(record));
        List<String> traced = new CliLogging.LineFormatter(true).format(record).lines().toList();
        assertTrue(traced.size() > 2, () -> "no stack trace: " + traced);
        assertEquals("warn io.blockxfer.x: closing failed: java.io.IOException: gone", traced.getFirst());
        assertEquals("java.io.IOException: gone", traced.get(1));
        assertTrue(traced.get(2).startsWith("\tat " + CliLoggingTest.class.getName() + "."), traced::toString);
    }

    @Test
    void theLevelNamesOfTheOptionAndOfJavaUtilLogging() {
        LogLevelConverter converter = new LogLevelConverter();
        Map<String, Level> names = Map.ofEntries(Map.entry("off", Level.OFF), Map.entry("ERROR", Level.SEVERE),
                Map.entry("severe", Level.SEVERE), Map.entry("warn", Level.WARNING), Map.entry("Warning", Level.WARNING),
                Map.entry("info", Level.INFO), Map.entry("config", Level.CONFIG), Map.entry("debug", Level.FINE),
                Map.entry("fine", Level.FINE), Map.entry("finer", Level.FINER), Map.entry("trace", Level.FINEST),
                Map.entry("finest", Level.FINEST), Map.entry("all", Level.ALL));
        names.forEach((name, level) -> assertEquals(level, converter.convert(name), name));
        assertThrows(TypeConversionException.class, () -> converter.convert("loud"));
    }

    /** What logging installed here (at {@code level}, or by default) prints for a few records. */
    private static List<String> logged(@Nullable Level level) {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream err = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try (CliLogging logging = CliLogging.install()) {
            if (level != null) {
                logging.setLevel(level);
            }
            System.Logger own = System.getLogger("io.blockxfer.directory.Membership");
            own.log(System.Logger.Level.WARNING, "membership 'm' lost the directory (gone)",
                    new IOException("reset by peer"));
            own.log(System.Logger.Level.ERROR, "failed");
            own.log(System.Logger.Level.INFO, "published");
            LIBRARY.warning("a library's warning");
            LIBRARY.log(Level.FINE, "a library''s debug line: {0}", 7);
        } finally {
            System.setErr(err);
        }
        return captured.toString(StandardCharsets.UTF_8).lines().toList();
    }
}
