package io.blockxfer.cli.internal;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.PeerRegistrationException;
import io.blockxfer.transport.Transports;
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
}
