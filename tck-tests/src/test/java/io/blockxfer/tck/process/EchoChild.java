package io.blockxfer.tck.process;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A child program for {@link ChildJvmTest}: answers each line, writes stderr on request, reports its
 * process id and its open-files limit on request, exits on request or EOF.
 */
public final class EchoChild {

    private EchoChild() {
    }

    public static void main(String[] args) throws Exception {
        ChildJvm.exitWhenParentDies();
        System.out.println("READY " + String.join(",", args) + " " + System.getProperty("echo.flag", "-"));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.startsWith("EXIT ")) {
                System.exit(Integer.parseInt(line.substring(5)));
            } else if (line.equals("PID")) {
                System.out.println("PID " + ProcessHandle.current().pid());
            } else if (line.equals("FILES")) {
                System.out.println("FILES " + openFilesLimit());
            } else if (line.startsWith("ERR ")) {
                System.err.println(line.substring(4));
                System.out.println("OK");
            } else {
                System.out.println("ECHO " + line);
            }
        }
    }

    /** The soft limit on open files, from {@code /proc/self/limits}. */
    private static String openFilesLimit() throws IOException {
        for (String l : Files.readAllLines(Path.of("/proc/self/limits"), StandardCharsets.US_ASCII)) {
            if (l.startsWith("Max open files")) {
                return l.substring("Max open files".length()).trim().split("\\s+", -1)[0];
            }
        }
        return "?";
    }
}
