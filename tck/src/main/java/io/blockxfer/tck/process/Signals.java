package io.blockxfer.tck.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Sends a POSIX signal to a process by id, through the system's {@code kill} command (Java has no
 * API for {@code SIGSTOP} and {@code SIGCONT}).
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class Signals {

    private static final String KILL = findKill();

    private Signals() {
    }

    /** Sends {@code SIG<signal>} (e.g. {@code "STOP"}) to {@code pid} and waits for the command. */
    static void send(long pid, String signal) {
        Process p;
        try {
            p = new ProcessBuilder(KILL, "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new ChildProcessException("cannot run '" + KILL + "' to send SIG" + signal + " to process " + pid, e);
        }
        try {
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new ChildProcessException("'" + KILL + " -" + signal + " " + pid + "' did not finish");
            }
            if (p.exitValue() != 0) {
                throw new ChildProcessException("'" + KILL + " -" + signal + " " + pid + "' failed with status "
                        + p.exitValue() + ": " + output);
            }
        } catch (IOException e) {
            throw new ChildProcessException("'" + KILL + " -" + signal + " " + pid + "' failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ChildProcessException("interrupted sending SIG" + signal + " to process " + pid, e);
        }
    }

    private static String findKill() {
        for (String candidate : new String[] {"/bin/kill", "/usr/bin/kill"}) {
            if (Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        return "kill";
    }
}
