package io.blockxfer.tck.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class ChildJvmTest {

    private static final Duration REPLY = Duration.ofSeconds(30);

    private static ChildJvm.Builder echo() {
        return ChildJvm.builder(EchoChild.class).stderrTo(line -> { });
    }

    @Test
    void speaksALineProtocolAndPassesArgumentsAndProperties() {
        System.setProperty("echo.flag", "on");
        try (ChildJvm child = echo().args("a", "b").forwardSystemProperties(k -> k.equals("echo.flag")).start()) {
            assertEquals("READY a,b on", child.nextLine(REPLY));
            assertEquals("ECHO ping", child.request("ping", REPLY));
            assertTrue(child.isAlive());
        } finally {
            System.clearProperty("echo.flag");
        }
    }

    @Test
    void aFrozenChildAnswersOnlyAfterItIsThawed() {
        try (ChildJvm child = echo().start()) {
            child.nextLine(REPLY);
            child.suspend();
            assertTrue(child.isSuspended());
            child.send("while frozen");
            var e = assertThrows(ChildJvmException.class, () -> child.nextLine(Duration.ofMillis(500)));
            assertTrue(e.getMessage().contains("suspended"), e.getMessage());
            child.resume();
            assertFalse(child.isSuspended());
            assertEquals("ECHO while frozen", child.nextLine(REPLY));
        }
    }

    @Test
    void aKilledChildIsReapedAndReportsTheSignal() {
        ChildJvm child = echo().start();
        child.nextLine(REPLY);
        child.kill();
        assertFalse(child.isAlive());
        assertEquals(OptionalInt.of(137), child.exitCode());
        var e = assertThrows(ChildJvmException.class, () -> child.request("anyone?", REPLY));
        assertTrue(e.getMessage().contains("signal 9"), e.getMessage());
        child.close();
    }

    @Test
    void anExitIsSeenWithItsStatusAndStderr() {
        try (ChildJvm child = echo().start()) {
            child.nextLine(REPLY);
            assertEquals("OK", child.request("ERR something went wrong", REPLY));
            child.send("EXIT 7");
            assertEquals(7, child.awaitExit(REPLY));
            var e = assertThrows(ChildJvmException.class, () -> child.nextLine(REPLY));
            assertTrue(e.getMessage().contains("exit status 7"), e.getMessage());
            assertTrue(e.getMessage().contains("something went wrong"), e.getMessage());
            assertEquals(List.of("something went wrong"), child.stderrTail());
        }
    }

    @Test
    void closeEndsAFrozenChildAndIsIdempotent() {
        ChildJvm child = echo().exitGrace(Duration.ofSeconds(10)).start();
        child.nextLine(REPLY);
        child.suspend();
        child.close();
        assertFalse(child.isAlive(), "close must thaw a frozen child and end it");
        assertEquals(OptionalInt.of(0), child.exitCode(), "it exits by itself once its stdin closes");
        child.close();
    }

    @Test
    void aChildThatCannotStartIsATypedError() {
        var e = assertThrows(ChildJvmException.class, () -> ChildJvm.builder("nowhere.Main")
                .javaBinary(java.nio.file.Path.of("/nonexistent/java")).start());
        assertTrue(e.getMessage().contains("could not start"), e.getMessage());
    }
}
