package io.blockxfer.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.PeerRegistrationException;
import io.blockxfer.transport.ProgressMode;
import io.blockxfer.transport.Transports;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The child-process plumbing of {@code bench --processes 2}, exercised with the loopback backend: the
 * target process starts, publishes its descriptor over the line protocol, and the initiator's
 * registration fails as it must for an in-JVM backend across processes.
 */
class ChildProcessPairTest {

    @Test
    void targetProcessStartsAndAnInJvmBackendCannotReachIt() {
        var loopback = Transports.select("loopback", getClass().getClassLoader());
        var e = assertThrows(PeerRegistrationException.class, () -> ChildProcessPair.open(loopback, 4, 4096, Tuning.DEFAULT).close());
        assertTrue(e.getMessage().contains("another process"), e::getMessage);
    }

    @Test
    void theTargetGetsTheBlockxferPropertiesTheSizesAndTheBackendOptions() {
        String key = "blockxfer.test.childProcessPair";
        System.setProperty(key, "forwarded");
        try {
            Tuning tuning = new Tuning(ProgressMode.AUTO, Map.of("some.option", "7"));
            List<String> cmd = ChildProcessPair.targetCommand("loopback", 4, 4096, tuning).command();
            assertTrue(cmd.contains("-D" + key + "=forwarded"), cmd::toString);
            assertTrue(cmd.contains("-Xmx256m"), cmd::toString);
            assertTrue(cmd.stream().noneMatch(a -> a.startsWith("-Djava.")), cmd::toString);
            int main = cmd.indexOf(BenchTargetProcess.class.getName());
            assertEquals(List.of("loopback", "4", "4096"), cmd.subList(main + 1, main + 4), cmd::toString);
            assertEquals("opt:some.option=7", cmd.getLast(), cmd::toString);
        } finally {
            System.clearProperty(key);
        }
    }
}
