package io.blockxfer.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The launcher's JVM options ({@code ./blockxfer}: native access, and {@code sun.misc.Unsafe}'s
 * memory access for protobuf and Netty, so that the JDK prints none of its warnings for them) are
 * {@link LauncherJvmOptions#ALL}, and the JVMs the tool starts itself (the target of
 * {@code bench --processes 2}, the CPU hog of {@code --hog}) get each of them once.
 */
class LauncherJvmOptionsTest {

    @Test
    void theLauncherGivesTheToolsJvmTheseOptions() {
        assertEquals(LauncherJvmOptions.ALL, LauncherScript.jvmOptions());
        assertTrue(LauncherJvmOptions.ALL.contains("--sun-misc-unsafe-memory-access=allow"),
                LauncherJvmOptions.ALL::toString);
        assertTrue(LauncherJvmOptions.ALL.contains("--enable-native-access=ALL-UNNAMED"),
                LauncherJvmOptions.ALL::toString);
    }

    @Test
    void theTargetOfTwoProcessesAndTheCpuHogGetEachOptionOnce() {
        assertEachOptionOnce(ChildProcessPair.targetCommand("loopback", 4, 4096, Tuning.DEFAULT).command());
        assertEachOptionOnce(CpuHog.command(2).command());
    }

    private static void assertEachOptionOnce(List<String> cmd) {
        for (String option : LauncherScript.jvmOptions()) {
            assertEquals(1, cmd.stream().filter(option::equals).count(), () -> option + " in " + cmd);
        }
    }
}
