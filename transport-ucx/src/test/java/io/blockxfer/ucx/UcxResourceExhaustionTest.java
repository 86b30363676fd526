package io.blockxfer.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.MalformedPeerDescriptorException;
import io.blockxfer.transport.PeerRegistrationException;
import io.blockxfer.transport.TransportException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A native resource error is reported as what it is: with no file descriptor left, registering a
 * valid peer fails with {@link PeerRegistrationException} naming the cause (never "malformed" or
 * "incompatible"), opening a transport fails with a {@link TransportException} naming it, and the
 * same peer registers once descriptors are free again. In a child JVM ({@link ResourceExhaustionRun}).
 */
class UcxResourceExhaustionTest {

    @Test
    void runningOutOfFileDescriptorsIsAResourceErrorNotABadPeer() throws Exception {
        UcxTestSupport.requireUcx();
        Process p = new ProcessBuilder(UcxTestSupport.javaCommand(ResourceExhaustionRun.class.getName(), List.of(),
                List.of())).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "did not end:\n" + out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("EXHAUSTED"), out);
        String add = out.lines().filter(l -> l.startsWith("ADD ")).findFirst().orElseThrow();
        assertTrue(add.startsWith("ADD " + PeerRegistrationException.class.getName()), add);
        assertTrue(add.contains("Too many open files") || add.contains("UCS_ERR"), "the native cause is named: "
                + add);
        assertFalse(add.contains(MalformedPeerDescriptorException.class.getSimpleName()) || add.contains("malformed"),
                add);
        String open = out.lines().filter(l -> l.startsWith("OPEN ")).findFirst().orElseThrow();
        assertTrue(open.startsWith("OPEN io.blockxfer.") && !open.contains("Malformed"), open);
        assertTrue(open.contains("Too many open files") || open.contains("UCS_ERR") || open.contains("errno"), open);
        assertTrue(out.contains("RETRY ok"), "the valid peer did not register after the descriptors were freed:\n"
                + out);
    }
}
