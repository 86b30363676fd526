package io.blockxfer.cli.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The launcher, {@code ./blockxfer} at the repository root, as the tests read it: the JVM options
 * of its {@code jvm_options=(...)} line, which its {@code exec} passes to the tool's JVM.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class LauncherScript {

    private static final Pattern OPTIONS = Pattern.compile("(?m)^jvm_options=\\(([^)]*)\\)$");

    private LauncherScript() {
    }

    /** The launcher script, found in the first directory above the working directory that holds it. */
    public static Path path() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path script = dir.resolve("blockxfer");
            if (Files.isRegularFile(script) && Files.isDirectory(dir.resolve("blockxfer-cli"))) {
                return script;
            }
        }
        throw new AssertionError("no ./blockxfer launcher above " + Path.of("").toAbsolutePath());
    }

    /** The script's text. */
    public static String text() {
        try {
            return Files.readString(path());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The JVM options the launcher gives the tool's JVM, in its order. */
    public static List<String> jvmOptions() {
        String text = text();
        Matcher m = OPTIONS.matcher(text);
        if (!m.find()) {
            throw new AssertionError("the launcher " + path() + " has no jvm_options=(...) line");
        }
        if (!text.contains("exec \"$java_home/bin/java\" \"${jvm_options[@]}\"")) {
            throw new AssertionError("the launcher's exec does not pass \"${jvm_options[@]}\" to java");
        }
        return Arrays.stream(m.group(1).strip().split("\\s+")).filter(s -> !s.isEmpty()).toList();
    }
}
