package io.blockxfer.cli;

import io.blockxfer.cli.internal.CliLogging;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a user of the command must not see: lines that are not blockxfer's own. Those are SLF4J's
 * own lines ({@code SLF4J(W): No SLF4J providers were found}), the JVM's warnings ({@code WARNING:
 * A terminally deprecated method in sun.misc.Unsafe has been called}, {@code WARNING: Use
 * --enable-native-access ...}, {@code NOTE: Picked up JDK_JAVA_OPTIONS}), records in the two-line
 * format of {@code java.util.logging}'s {@code SimpleFormatter} ({@code Dec 04, 2026 3:41:12 PM
 * io.grpc.internal.ManagedChannelImpl ...}), records of a library logger in the command's own
 * one-line format ({@code warn io.netty...: ...}; those of {@value CliLogging#OWN} loggers are
 * blockxfer's own), other logging frameworks' lines ({@code [main] INFO ...}) and stack traces.
 */
final class OwnLines {

    private static final List<Pattern> FOREIGN = List.of(
            Pattern.compile("^SLF4J"),
            Pattern.compile("sun\\.misc\\.Unsafe"),
            Pattern.compile("^(WARNING|NOTE|OpenJDK [^:]*(Warning|warning)): "),
            // SimpleFormatter: "MMM dd, yyyy h:mm:ss a LOGGER METHOD", then "LEVEL: MESSAGE"
            Pattern.compile("^\\p{L}{3,}\\.? \\d{1,2}, \\d{4},? \\d{1,2}:\\d{2}:\\d{2}"),
            Pattern.compile("^(SEVERE|WARNING|INFO|CONFIG|FINE|FINER|FINEST): "),
            Pattern.compile("^\\[[^\\]]+\\] (ERROR|WARN|INFO|DEBUG|TRACE) "),
            Pattern.compile("^\\s+at [\\w$.]+\\(|^Exception in thread |^Caused by: "));

    /** The command's one-line log format: {@code LEVEL LOGGER: MESSAGE}. */
    private static final Pattern LOG_LINE = Pattern.compile("^(error|warn|info|debug|trace) (\\S+): ");

    private OwnLines() {
    }

    /** The lines of {@code output} that are not blockxfer's own. */
    static List<String> foreign(String output) {
        return output.lines().filter(OwnLines::isForeign).toList();
    }

    /** Whether {@code line} is the log line of a library, by the command's one-line format. */
    static boolean isLibraryLogLine(String line) {
        Matcher m = LOG_LINE.matcher(line);
        return m.find() && !(m.group(2).equals(CliLogging.OWN) || m.group(2).startsWith(CliLogging.OWN + "."));
    }

    /** Whether {@code line} is not blockxfer's own. */
    static boolean isForeign(String line) {
        return isLibraryLogLine(line) || FOREIGN.stream().anyMatch(p -> p.matcher(line).find());
    }

    /** Fails, naming them, when {@code output} has lines that are not blockxfer's own. */
    static void assertOnlyOwn(String output) {
        List<String> foreign = foreign(output);
        if (!foreign.isEmpty()) {
            throw new AssertionError(foreign.size() + " line(s) not blockxfer's own, the first: " + foreign.getFirst()
                    + "\n--- all the output:\n" + output);
        }
    }
}
