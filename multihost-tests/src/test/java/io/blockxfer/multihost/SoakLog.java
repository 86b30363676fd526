package io.blockxfer.multihost;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The soak's running commentary: time-stamped lines (seconds since the start) on standard output
 * and in {@code soak.log} of the report folder.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
final class SoakLog implements AutoCloseable {

    private final long startNanos = System.nanoTime();
    private final PrintStream file;

    SoakLog(Path file) throws IOException {
        this.file = new PrintStream(Files.newOutputStream(file, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING), true, StandardCharsets.UTF_8);
    }

    /** Seconds since the soak began, as the lines show them. */
    long seconds() {
        return (System.nanoTime() - startNanos) / 1_000_000_000L;
    }

    /** Writes one line, prefixed with the seconds since the soak began. */
    synchronized void line(String text) {
        String l = String.format(java.util.Locale.ROOT, "[%7.1f s] %s", (System.nanoTime() - startNanos) / 1e9, text);
        System.out.println(l);
        file.println(l);
    }

    @Override
    public synchronized void close() {
        file.close();
    }
}
