package io.blockxfer.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The command's logging ({@link CliLogging}) in this JVM, on a captured standard error: by default
 * blockxfer's own warnings and errors show, one line each, and nothing of a library nor blockxfer's
 * info; a level puts every logger at it; closing puts back what was there.
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
