package io.blockxfer.holds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.Notification;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Where the transport has a key ring, a hold message it did not authenticate is refused, unless told otherwise. */
class KeyedHoldsTest {

    private static final DeploymentKeyRing RING;

    static {
        byte[] key = new byte[DeploymentKeyRing.MIN_KEY_BYTES];
        Arrays.fill(key, (byte) 7);
        RING = DeploymentKeyRing.of("k1", key);
    }

    private static DataTransport keyed(String name) {
        return Transports.open(TransportConfig.builder(RegionSpec.allocate(Pair.BLOCKS, Pair.BLOCK)).agentName(name)
                .transport("loopback").keyRing(RING).build());
    }

    private static Notification unauthenticated(byte[] payload) {
        return new Notification("holder", "decode-0", Notification.Kind.MESSAGE, -1, payload, false, 0);
    }

    @Test
    void anUnauthenticatedReleaseIsRefusedAndChangesNothing() {
        try (DataTransport owner = keyed("prefill-0"); DataTransport holder = keyed("decode-0")) {
            owner.addPeer("holder", holder.localDescriptor());
            try (Holds holds = Holds.builder(owner).clock(new ManualHoldClock()).manualTicks().build()) {
                Hold hold = holds.create("holder", new int[] {1}, Pair.TTL);
                assertTrue(holds.offer(unauthenticated(HoldMessage.release(true, hold.id()).encode())),
                        "a hold message, taken and refused");
                assertTrue(hold.isLive());
                assertEquals(1, holds.stats().messagesRefused());
                assertFalse(holds.offer(unauthenticated(new byte[] {1, 2, 3})), "not a hold message: the caller's");
            }
        }
    }

    @Test
    void toldToAcceptUnauthenticatedMessagesItTakesThem() {
        try (DataTransport owner = keyed("prefill-0"); DataTransport holder = keyed("decode-0")) {
            owner.addPeer("holder", holder.localDescriptor());
            try (Holds holds = Holds.builder(owner).clock(new ManualHoldClock()).manualTicks()
                    .acceptUnauthenticated(true).build()) {
                Hold hold = holds.create("holder", new int[] {1}, Pair.TTL);
                holds.offer(unauthenticated(HoldMessage.release(true, hold.id()).encode()));
                assertEquals(HoldEnd.Reason.RELEASED, hold.end().orElseThrow().reason());
                assertEquals(0, holds.stats().messagesRefused());
            }
        }
    }
}
