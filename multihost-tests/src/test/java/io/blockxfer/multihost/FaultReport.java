package io.blockxfer.multihost;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * The suite's closing note: one Markdown table row per fault and backend (time from the fault to
 * the first failed report, and to the last transfer in flight at the fault being reported), and one
 * per soak, appended to {@code <reportDir>/multihost-results.md} and printed.
 *
 * <p><b>Thread safety:</b> thread-safe (class lock).
 */
final class FaultReport {

    private static final String HEADER = """
            | when | backend | rule | fault | command (ms) | fault -> first failure (ms) | fault -> all failed (ms) | details |
            |---|---|---|---|---|---|---|---|
            """;

    private FaultReport() {
    }

    private static String orDash(long millis) {
        return millis < 0 ? "-" : Long.toString(millis);
    }

    /** Records one row. Times are measured from the moment the fault command was issued;
     * {@code commandMillis} is how long the command took to return (-1: none). */
    static synchronized void row(String backend, String rule, String fault, long commandMillis,
            long firstFailureMillis, long allFailedMillis, String details) {
        String line = "| " + Instant.now() + " | " + backend + " | " + rule + " | " + fault + " | "
                + orDash(commandMillis) + " | " + orDash(firstFailureMillis) + " | " + orDash(allFailedMillis)
                + " | " + details + " |";
        System.out.println("[multihost] " + line);
        Path file = MultihostSettings.get().reportDir().resolve("multihost-results.md");
        try {
            Files.createDirectories(file.getParent());
            if (!Files.exists(file)) {
                Files.writeString(file, HEADER, StandardCharsets.UTF_8);
            }
            Files.writeString(file, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        } catch (IOException e) {
            System.err.println("could not write " + file + ": " + e);
        }
    }
}
