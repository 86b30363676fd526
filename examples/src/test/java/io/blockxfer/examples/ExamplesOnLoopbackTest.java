package io.blockxfer.examples;

import static io.blockxfer.examples.Loopback.assertFilled;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.Notification;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import io.blockxfer.transport.UnauthenticatedPeerException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The guides' examples that run on loopback: notifications, faults, the key ring. */
class ExamplesOnLoopbackTest {

    @Test
    void theNotificationsExampleTellsTheTargetAfterItsBlocksLandedAndTheTargetAnswers() throws Exception {
        try (DataTransport prefill = Loopback.open("prefill-0"); DataTransport decode = Loopback.open("decode-0")) {
            prefill.addPeer("decode-3", decode.localDescriptor());
            decode.addPeer("prefill-0", prefill.localDescriptor());
            prefill.region().block(1).fill((byte) 1);
            prefill.region().block(2).fill((byte) 2);

            Notifications example = new Notifications();
            example.exchange(prefill, decode, new int[] {1, 2}, new int[] {3, 4});

            PollResult write = prefill.poll("decode-3", 10, TimeUnit.SECONDS);
            assertEquals(1, write.doneCount(), write.toString());
            assertEquals(List.of("prefill-0 #" + write.doneId(0) + " req-42:layer-7"), example.landed());
            assertFilled(decode, 3, 1);
            assertFilled(decode, 4, 2);
            List<Notification> answers = new ArrayList<>();
            prefill.pollNotifications(answers::add, 10, TimeUnit.SECONDS);
            assertEquals(1, answers.size(), answers.toString());
            assertEquals("decode-3", answers.getFirst().sender());
            assertEquals(Notification.Kind.MESSAGE, answers.getFirst().kind());
            assertArrayEquals("req-42:done".getBytes(US_ASCII), answers.getFirst().payload());
        }
    }

    @Test
    void aPeerTheFaultsExampleKilledFailsTheWritesToIt() throws Exception {
        try (DataTransport writer = Loopback.open("writer"); DataTransport target = Loopback.open("target")) {
            writer.addPeer("target", target.localDescriptor());

            LoopbackTesting.faults(target);

            long id = writer.writeBlocks("target", new int[] {0}, new int[] {0});
            PollResult ended = writer.poll("target", 10, TimeUnit.SECONDS);
            assertArrayEquals(new long[] {id}, ended.failed(), ended.toString());
        }
    }

    @Test
    void theKeyRingExampleAcceptsAPeerSignedWithTheKeyBeingRotatedOutAndRefusesAStranger(@TempDir Path dir)
            throws Exception {
        Path keyFile = randomKey(dir.resolve("current.key"));
        Path previousKeyFile = randomKey(dir.resolve("previous.key"));
        Path strangerKeyFile = randomKey(dir.resolve("stranger.key"));
        RegionSpec region = RegionSpec.allocate(Loopback.BLOCKS, Loopback.BLOCK_BYTES);
        try (DataTransport prefill = keyed(DeploymentKeyRing.of("2026-05", Files.readAllBytes(keyFile))
                        .withVerificationKey("2026-02", Files.readAllBytes(previousKeyFile)));
                DataTransport old = keyed(DeploymentKeyRing.of("2026-02", Files.readAllBytes(previousKeyFile)));
                DataTransport stranger = keyed(DeploymentKeyRing.of("2026-02", Files.readAllBytes(strangerKeyFile)))) {
            TransportConfig config = TrustModel.keyRing(keyFile, previousKeyFile, region, prefill,
                    old.localDescriptor().encode());
            assertTrue(prefill.traffic("decode-3").isPresent(), "the peer signed with the previous key is registered");
            assertEquals(2, config.keyRing().orElseThrow().keyIds().size());

            prefill.removePeer("decode-3");
            assertThrows(UnauthenticatedPeerException.class, () -> TrustModel.keyRing(keyFile, previousKeyFile,
                    region, prefill, stranger.localDescriptor().encode()));
            assertTrue(prefill.traffic("decode-3").isEmpty(), "the stranger is not registered");
        }
    }

    private static Path randomKey(Path file) throws Exception {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        return Files.write(file, key);
    }

    private static DataTransport keyed(DeploymentKeyRing ring) {
        return Transports.open(TransportConfig.builder(RegionSpec.allocate(Loopback.BLOCKS, Loopback.BLOCK_BYTES))
                .keyRing(ring).transport("loopback").build());
    }
}
