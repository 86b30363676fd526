package io.blockxfer.cli.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How a command that runs until it is stopped tells its user to stop it. Ctrl-C, unless this
 * process ignores SIGINT: a background job of a non-interactive shell inherits it ignored, and the
 * JVM then leaves it so, and only SIGTERM stops the command. Read from {@code /proc/self/status}
 * ({@code SigIgn}); where there is no such file, Ctrl-C is assumed.
 *
 * <p><b>Thread safety:</b> stateless; thread-safe.
 */
public final class StopSignal {

    /** SIGINT is signal 2: bit 1 of the {@code SigIgn} mask. */
    private static final long SIGINT_BIT = 1L << 1;

    private StopSignal() {
    }

    /** The words that end a "serving ..." line: how to stop this process. */
    public static String hint() {
        String status;
        try {
            status = Files.readString(Path.of("/proc/self/status"));
        } catch (IOException | SecurityException e) {
            return "Ctrl-C stops";
        }
        return sigintIgnored(status) ? "SIGTERM stops (SIGINT is ignored in this process, as in a background job)"
                : "Ctrl-C stops";
    }

    /** Whether a {@code /proc/PID/status} text says SIGINT is ignored; false when it does not say. */
    static boolean sigintIgnored(String procStatus) {
        return procStatus.lines().filter(l -> l.startsWith("SigIgn:")).findFirst().map(l -> {
            try {
                return (Long.parseUnsignedLong(l.substring(7).strip(), 16) & SIGINT_BIT) != 0;
            } catch (NumberFormatException e) {
                return false;
            }
        }).orElse(false);
    }
}
