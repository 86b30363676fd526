package io.blockxfer.transport.internal.notify;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.blockxfer.transport.Notification;
import org.junit.jupiter.api.Test;

/** A frame decodes to what was encoded; a receiver's last agent name is reused only for the same name. */
class NotificationFramesTest {

    private static byte[] frame(String agent) {
        return NotificationFrames.encode(Notification.Kind.WRITE, 1, 2, 3, 4, 5, 6, agent, new byte[] {7, 8}, null);
    }

    @Test
    void aFrameDecodesToWhatWasEncoded() {
        NotificationFrames.Frame f = NotificationFrames.decode(frame("prefill-0"));
        assertNotNull(f);
        assertEquals(Notification.Kind.WRITE, f.kind());
        assertEquals(1, f.sender());
        assertEquals(2, f.receiver());
        assertEquals(5, f.transferId());
        assertEquals("prefill-0", f.agentName());
        assertArrayEquals(new byte[] {7, 8}, f.payload());
        assertNull(f.keyId());
    }

    @Test
    void theKnownNameIsReusedForTheSameAgentOnly() {
        String known = new String("prefill-0".toCharArray());
        NotificationFrames.Frame same = NotificationFrames.decode(frame("prefill-0"), known);
        assertNotNull(same);
        assertSame(known, same.agentName());
        NotificationFrames.Frame other = NotificationFrames.decode(frame("prefill-1"), known);
        assertNotNull(other);
        assertEquals("prefill-1", other.agentName(), "a name of the same length, one byte apart");
        NotificationFrames.Frame longer = NotificationFrames.decode(frame("prefill-10"), known);
        assertNotNull(longer);
        assertEquals("prefill-10", longer.agentName());
    }
}
