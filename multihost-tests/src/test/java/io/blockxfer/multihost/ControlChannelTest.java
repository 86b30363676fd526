package io.blockxfer.multihost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The kit itself, with the loopback backend (no native library): a peer container starts from the
 * local image, and its control channel keeps working through every fault the suite applies, except
 * the kill, which ends it.
 */
// full tier: the multi-host suite: peers in Docker containers of the project's engine and peer image (.ci/run
// sets both up; without them it skips); the fast tier runs the peer program in this JVM
// (PeerSessionLoopbackTest)
@Tag("full")
@Tag("multihost")
@ExtendWith(PeerHostsCondition.class)
@Timeout(120)
class ControlChannelTest {

    @Test
    void theControlChannelSurvivesACutAndAFreezeAndEndsWithAKill() throws Exception {
        try (Testbed bed = Testbed.open("loopback", "kit", Duration.ofSeconds(3))) {
            TargetHost t = bed.targets(1).getFirst();
            assertEquals("pong", t.request("PING").line().split(" ", -1)[2]);
            assertEquals(0, t.verify("0:" + io.blockxfer.tck.BlockPattern.seed(t.family(), 0)).num("mismatches"));
            assertEquals(1, t.verify("0:12345").num("mismatches"));

            t.disconnect();
            t.request("PING");
            t.reconnect();

            t.pause();
            int mark = t.mark();
            Thread.sleep(300);
            assertEquals(mark, t.mark(), "a frozen peer sends nothing");
            t.unpause();
            t.request("PING");

            t.kill();
            AssertionError gone = assertThrows(AssertionError.class, () -> t.request("PING", Duration.ofSeconds(10)));
            assertTrue(gone.getMessage().contains("ended") || gone.getMessage().contains("could not send"),
                    gone.getMessage());
            Thread.sleep(500);
            assertFalse(t.isRunning());
        }
    }
}
