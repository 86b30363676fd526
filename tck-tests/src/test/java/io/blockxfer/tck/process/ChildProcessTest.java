package io.blockxfer.tck.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Any program as a child, and the launcher a child JVM can be started through. */
class ChildProcessTest {

    private static final Duration REPLY = Duration.ofSeconds(30);

    @Test
    void anyProgramSpeaksTheLineProtocolAndItsOutputEnds() {
        ChildProcess child = ChildProcess.builder(List.of("sh", "-c",
                "echo READY $GREETING; while read l; do echo \"GOT $l\"; done; echo BYE")).environment("GREETING", "hi")
                .stderrTo(line -> { }).start();
        try {
            assertEquals("READY hi", child.nextLine(REPLY));
            assertEquals("GOT ping", child.request("ping", REPLY));
        } finally {
            child.close(); // closes its stdin: the loop ends
        }
        assertEquals(Optional.of("BYE"), child.nextLineIfAny(REPLY));
        assertEquals(Optional.empty(), child.nextLineIfAny(REPLY), "stdout ended");
        assertEquals(Optional.empty(), child.nextLineIfAny(REPLY), "and stays ended");
        assertEquals(0, child.exitCode().orElseThrow());
    }

    @Test
    void aFailedChildProcessIsNamedAsSuchAndNotAsAJvm() {
        try (ChildProcess child = ChildProcess.builder(List.of("sh", "-c", "echo gone >&2; exit 7"))
                .name("quitter").stderrTo(line -> { }).start()) {
            var e = assertThrows(ChildProcessException.class, () -> child.nextLine(REPLY));
            assertFalse(e instanceof ChildJvmException, e.toString());
            assertTrue(e.getMessage().contains("child process 'quitter'") && e.getMessage().contains("exit status 7")
                    && e.getMessage().contains("gone"), e.getMessage());
        }
        var e = assertThrows(ChildProcessException.class,
                () -> ChildProcess.builder(List.of("/nonexistent/program")).start());
        assertTrue(e.getMessage().contains("/nonexistent/program"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ChildProcess.builder(List.of()));
    }

    @Test
    void theMessageOfAChildWhoseStdoutEndedHoldsWhatItWroteToStderrLast() {
        // stdout's end and stderr's last line are read by two threads, so one run proves little
        for (int run = 0; run < 300; run++) {
            try (ChildProcess child = ChildProcess.builder(List.of("sh", "-c", "echo last words " + run + " >&2; exit 3"))
                    .name("quitter").stderrTo(line -> { }).start()) {
                var e = assertThrows(ChildProcessException.class, () -> child.nextLine(REPLY));
                assertTrue(e.getMessage().contains("exit status 3") && e.getMessage().contains("last words " + run),
                        "run " + run + ": " + e.getMessage());
            }
        }
    }

    @Test
    void aChildJvmStartedThroughALauncherKeepsItsProcessAndGetsItsLimits() {
        try (ChildJvm child = ChildJvm.builder(EchoChild.class).stderrTo(line -> { })
                .launcher(List.of("bash", "-c", "ulimit -n 512 && exec \"$0\" \"$@\"")).start()) {
            child.nextLine(REPLY);
            assertEquals("PID " + child.pid(), child.request("PID", REPLY));
            assertEquals("FILES 512", child.request("FILES", REPLY));
        }
    }
}
