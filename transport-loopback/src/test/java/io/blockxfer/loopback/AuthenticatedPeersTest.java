package io.blockxfer.loopback;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import io.blockxfer.transport.UnauthenticatedPeerException;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Two transports of one deployment exchange signed descriptors and move bytes; an outsider cannot join. */
class AuthenticatedPeersTest {

    private static byte[] key(int seed) {
        byte[] k = new byte[32];
        Arrays.fill(k, (byte) seed);
        k[0] = 1;
        return k;
    }

    private static TransportConfig config(DeploymentKeyRing ring) {
        return TransportConfig.builder(RegionSpec.allocate(4, 128)).transport("loopback").keyRing(ring).build();
    }

    @Test
    void peersOfOneDeploymentRegisterEachOtherAndMoveBytes() {
        DeploymentKeyRing ring = DeploymentKeyRing.of("k1", key(7));
        try (DataTransport a = Transports.open(config(ring)); DataTransport b = Transports.open(config(ring))) {
            byte[] fromB = b.localDescriptor().encode();
            a.addPeer("b", PeerDescriptor.decode(fromB, ring));
            a.region().block(1).fill((byte) 5);
            long id = a.writeBlocks("b", new int[] {1}, new int[] {2});
            long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            PollResult r = PollResult.EMPTY;
            while (r.isEmpty() && System.nanoTime() < end) {
                r = a.poll("b");
            }
            assertArrayEquals(new long[] {id}, r.done());
            assertEquals(-1, b.region().block(2).mismatch(a.region().block(1)));
        }
    }

    @Test
    void aTransportOfAnotherDeploymentIsRejected() {
        try (DataTransport a = Transports.open(config(DeploymentKeyRing.of("k1", key(7))));
                DataTransport outsider = Transports.open(config(DeploymentKeyRing.of("k1", key(8))))) {
            var e = assertThrows(UnauthenticatedPeerException.class,
                    () -> a.addPeer("x", PeerDescriptor.decode(outsider.localDescriptor().encode())));
            assertEquals(UnauthenticatedPeerException.Reason.CHANGED_AFTER_SIGNING, e.reason());
            assertEquals(DataTransport.NOT_SUBMITTED, a.writeBlocks("x", new int[] {0}, new int[] {0}));
        }
    }
}
