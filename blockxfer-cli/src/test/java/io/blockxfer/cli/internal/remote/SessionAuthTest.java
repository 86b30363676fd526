package io.blockxfer.cli.internal.remote;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.cli.internal.KeyFile;
import io.blockxfer.cli.internal.KeyFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The frame authentication of the control channel, both ends in this test. */
class SessionAuthTest {

    @TempDir
    Path dir;

    private final byte[] k1 = KeyFiles.random(32);
    private KeyFile serverKeys;
    private KeyFile clientKeys;

    @BeforeEach
    void keys() throws IOException {
        serverKeys = KeyFiles.load(KeyFiles.write(dir, "server.key", "rw-------", KeyFiles.line("k1", k1)));
        clientKeys = KeyFiles.load(KeyFiles.write(dir, "client.key", "rw-------", KeyFiles.line("k1", k1)));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void framesGoBothWaysUnderTheAgreedSessionKey() throws IOException {
        SessionAuth server = SessionAuth.server(serverKeys);
        SessionAuth client = SessionAuth.client(clientKeys, server.serverNonce());
        byte[] hello = client.seal(bytes("hello"));
        assertEquals(SessionAuth.NONCE_BYTES + SessionAuth.TAG_BYTES + 5, hello.length, "nonce, tag, payload");
        assertArrayEquals(bytes("hello"), server.open(hello));
        assertEquals(Optional.of("k1"), server.keyId());
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(bytes("answer " + i), client.open(server.seal(bytes("answer " + i))));
            assertArrayEquals(bytes("request " + i), server.open(client.seal(bytes("request " + i))));
        }
        assertArrayEquals(server.streamProof(42), client.streamProof(42), "both ends compute the same proof");
        assertFalse(Arrays.equals(server.streamProof(42), client.streamProof(43)), "bound to the token");
    }

    @Test
    void aChangedFrameFailsItsTag() throws IOException {
        SessionAuth server = SessionAuth.server(serverKeys);
        SessionAuth client = SessionAuth.client(clientKeys, server.serverNonce());
        server.open(client.seal(bytes("hello")));
        byte[] ping = client.seal(bytes("{\"type\":\"ping\"}"));
        ping[ping.length - 2] ^= 1;
        var e = assertThrows(UnauthenticatedFrameException.class, () -> server.open(ping));
        assertEquals("frame 1 from the client is not authenticated: changed, replayed, out of order, or sealed with"
                + " another key", e.getMessage());
    }

    @Test
    void aFrameReplayedOrReorderedWithinTheConnectionFails() throws IOException {
        SessionAuth server = SessionAuth.server(serverKeys);
        SessionAuth client = SessionAuth.client(clientKeys, server.serverNonce());
        server.open(client.seal(bytes("hello")));
        byte[] first = client.seal(bytes("first"));
        byte[] second = client.seal(bytes("second"));
        assertThrows(UnauthenticatedFrameException.class, () -> server.open(second), "out of order");
        assertArrayEquals(bytes("first"), server.open(first));
        assertThrows(UnauthenticatedFrameException.class, () -> server.open(first), "replayed");

        byte[] answer = server.seal(bytes("answer"));
        assertThrows(UnauthenticatedFrameException.class, () -> server.open(answer), "reflected to its sender");
    }

    @Test
    void framesRecordedOnOneConnectionFailOnAnother() throws IOException {
        SessionAuth server1 = SessionAuth.server(serverKeys);
        SessionAuth client1 = SessionAuth.client(clientKeys, server1.serverNonce());
        byte[] hello = client1.seal(bytes("hello"));
        server1.open(hello);
        byte[] request = client1.seal(bytes("request"));
        server1.open(request);

        SessionAuth server2 = SessionAuth.server(serverKeys);
        assertFalse(Arrays.equals(server1.serverNonce(), server2.serverNonce()), "a fresh nonce per connection");
        var e = assertThrows(UnauthenticatedFrameException.class, () -> server2.open(hello));
        assertTrue(e.getMessage().startsWith("the client's first frame is not authenticated by any key of this"
                + " server [k1]"), e::getMessage);

        SessionAuth server3 = SessionAuth.server(serverKeys);
        server3.open(SessionAuth.client(clientKeys, server3.serverNonce()).seal(bytes("hello")));
        assertThrows(UnauthenticatedFrameException.class, () -> server3.open(request), "a request of connection 1");
    }

    @Test
    void aClientWithAnotherKeyOrNoneIsRefusedAtItsFirstFrame() throws IOException {
        KeyFile sameIdOtherKey = KeyFiles.load(KeyFiles.fresh(dir, "other.key", "k1"));
        SessionAuth server = SessionAuth.server(serverKeys);
        byte[] forged = SessionAuth.client(sameIdOtherKey, server.serverNonce()).seal(bytes("hello"));
        assertThrows(UnauthenticatedFrameException.class, () -> server.open(forged));
        assertTrue(server.keyId().isEmpty());

        var plain = assertThrows(UnauthenticatedFrameException.class,
                () -> SessionAuth.server(serverKeys).open(bytes("{\"type\":\"hello\"}")));
        assertTrue(plain.getMessage().contains("carries no nonce and tag (a client without a key?)"),
                plain::getMessage);
    }

    @Test
    void theServerAcceptsEveryKeyOfItsFileSoKeysRotate() throws IOException {
        byte[] k2 = KeyFiles.random(32);
        KeyFile rotating = KeyFiles.load(KeyFiles.write(dir, "rotating.key", "rw-------", KeyFiles.line("k2", k2),
                KeyFiles.line("k1", k1)));
        SessionAuth server = SessionAuth.server(rotating);
        assertArrayEquals(bytes("hello"), server.open(SessionAuth.client(clientKeys, server.serverNonce())
                .seal(bytes("hello"))));
        assertEquals(Optional.of("k1"), server.keyId(), "the session runs under the client's key");
    }

    @Test
    void withoutAKeyFramesPassUnchanged() throws IOException {
        SessionAuth none = SessionAuth.none();
        assertFalse(none.keyed());
        assertArrayEquals(bytes("x"), none.seal(bytes("x")));
        assertArrayEquals(bytes("x"), none.open(bytes("x")));
        assertEquals(0, none.streamProof(1).length);
    }
}
