package io.blockxfer.cli.internal.remote;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.cli.internal.BlockLayout;
import io.blockxfer.cli.internal.CliException;
import io.blockxfer.cli.internal.HostPort;
import io.blockxfer.cli.internal.JsonOutput;
import io.blockxfer.cli.internal.KeyFile;
import io.blockxfer.cli.internal.KeyFiles;
import io.blockxfer.cli.internal.PeerPair;
import io.blockxfer.cli.internal.SlotPlan;
import io.blockxfer.cli.internal.Tuning;
import io.blockxfer.cli.internal.WireProbe;
import io.blockxfer.tck.BlockPattern;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.ProgressMode;
import io.blockxfer.transport.TransferOp;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bench control channel with a deployment key, server and initiator in this JVM, no native
 * library needed: a keyed session measures end to end with signed descriptors; a stranger, a
 * client with another key, a changed frame, a replayed frame, a stream connection without the
 * key's proof and a descriptor changed after signing are each refused with their own message.
 */
class AuthenticatedBenchServerTest {

    @TempDir
    Path dir;

    private final StringWriter log = new StringWriter();
    private KeyFile keys;
    private BenchServer server;
    private Thread serving;

    @BeforeEach
    void keys() throws IOException {
        keys = KeyFiles.load(KeyFiles.fresh(dir, "bench.key", "k1"));
    }

    private void start(DescriptorCodec codec) {
        ServerConfig config = new ServerConfig(List.of(SameJvmLoopback.info()), List.of(), Map.of(), 64L << 20,
                Optional.of(keys), codec);
        server = BenchServer.bind(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 0), config, new PrintWriter(log, true));
        serving = Thread.ofPlatform().name("keyed-bench-server").start(server::serve);
    }

    private void start() {
        start(DescriptorCodec.signed(keys.ring()));
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (server != null) {
            server.stop();
            assertTrue(server.awaitStopped(Duration.ofSeconds(30)), "the server stops");
            serving.join(10_000);
        }
    }

    private HostPort address() {
        return new HostPort("127.0.0.1", server.address().getPort());
    }

    private Tuning keyed() {
        return new Tuning(ProgressMode.AUTO, Map.of(), Optional.of(keys.ring()));
    }

    /** Waits (bounded) for a line in the server's log. */
    private void awaitLog(String text) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!log.toString().contains(text)) {
            if (System.nanoTime() > end) {
                throw new AssertionError("no '" + text + "' in the server's log:\n" + log);
            }
            Thread.sleep(20);
        }
    }

    private static byte[] json(Message m) {
        return JsonOutput.mapper().writeValueAsBytes(m.node());
    }

    /** A raw control client that seals with {@link SessionAuth} as the real one does, or not at all. */
    private final class RawClient implements AutoCloseable {
        final Socket socket = new Socket();
        final DataInputStream in;
        final DataOutputStream out;
        final Challenge challenge;
        SessionAuth auth = SessionAuth.none();

        RawClient() throws IOException {
            socket.connect(server.address(), 5_000);
            socket.setSoTimeout(20_000);
            in = new DataInputStream(socket.getInputStream());
            out = new DataOutputStream(socket.getOutputStream());
            ControlProtocol.writePreamble(out, ControlProtocol.KIND_CONTROL);
            assertEquals(ControlProtocol.VERSION, ControlProtocol.readServerPreamble(in));
            challenge = Challenge.from(ControlProtocol.readFrame(in));
        }

        /** Says hello sealed under {@code with}; the server's answer. */
        Message hello(KeyFile with) throws IOException {
            auth = SessionAuth.client(with, challenge.nonce());
            return ask(Message.of("hello"));
        }

        Message ask(Message m) throws IOException {
            send(auth.seal(json(m)));
            return ControlProtocol.readFrame(in, auth);
        }

        void send(byte[] body) throws IOException {
            out.writeInt(body.length);
            out.write(body);
            out.flush();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    @Test
    void aKeyedSessionMeasuresEndToEndWithSignedDescriptors() throws Exception {
        start();
        try (BenchClient client = BenchClient.connect(address(), Optional.of(keys))) {
            BenchClient.Opened opened = client.open("loopback", 4, 4096, ProgressMode.AUTO);
            PeerDescriptor d = opened.descriptor();
            assertEquals(Optional.of("k1"), d.keyId(), "the target's transport signed its descriptor");
            client.closeTarget(opened.target());

            try (PeerPair pair = new RemoteSite(client).open(new SameJvmLoopback(), 8, 4096, keyed())) {
                DataTransport initiator = pair.initiator();
                BlockPattern.fill(initiator.region().block(3), 77);
                long id = initiator.writeBlocks(PeerPair.PEER, new int[] {3}, new int[] {5});
                assertTrue(id >= 0, "submitted");
                awaitDone(initiator, id);
                assertEquals(-1, pair.targetMismatch(5, 77), "the bytes landed on the served target");

                WireProbe.Rate r = pair.wire().orElseThrow().stream(TransferOp.WRITE, SlotPlan.of(1, 1,
                        BlockLayout.CONTIGUOUS), 4096, TimeUnit.MILLISECONDS.toNanos(20));
                assertTrue(r.bytes() > 0, "the stream connection proved the key and was admitted: " + r);
            }
        }
        awaitLog("session 1 (");
        assertTrue(log.toString().contains("authenticated with key 'k1'"), log::toString);
        awaitLog("ended by the client");
    }

    private static void awaitDone(DataTransport t, long id) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < end) {
            var r = t.poll(PeerPair.PEER);
            for (int i = 0; i < r.failedCount(); i++) {
                throw new AssertionError("transfer " + r.failedId(i) + " failed");
            }
            for (int i = 0; i < r.doneCount(); i++) {
                if (r.doneId(i) == id) {
                    return;
                }
            }
            Thread.sleep(1);
        }
        throw new AssertionError("transfer " + id + " did not complete");
    }

    @Test
    void aStrangerWithoutTheKeyCannotDriveTheServer() throws Exception {
        start();
        try (RawClient c = new RawClient()) {
            assertTrue(c.challenge.keyed());
            assertEquals(List.of("k1"), c.challenge.keyIds());
            Message open = Message.of("open");
            open.node().put("backend", "loopback");
            open.node().put("numBlocks", 4);
            open.node().put("blockBytes", 4096);
            open.node().put("progress", "auto");
            c.send(json(open)); // a plain request where a hello sealed with the key belongs
            Message refused = ControlProtocol.readFrame(c.in);
            assertEquals("error", refused.type());
            assertEquals("not authenticated: this server requires frames authenticated with its deployment key (key"
                    + " ids [k1])", refused.optionalText("message", ""));
            assertThrows(EOFException.class, () -> ControlProtocol.readFrame(c.in), "then it hangs up");
        }
        awaitLog("refused: the client's first frame is not authenticated");
        assertFalse(log.toString().contains("opened"), log::toString);
    }

    @Test
    void aClientWithAnotherKeyUnderTheSameIdIsRefused() throws Exception {
        start();
        KeyFile other = KeyFiles.load(KeyFiles.fresh(dir, "other.key", "k1"));
        try (RawClient c = new RawClient()) {
            byte[] body = SessionAuth.client(other, c.challenge.nonce()).seal(json(Message.of("hello")));
            c.send(body);
            Message refused = ControlProtocol.readFrame(c.in);
            assertTrue(refused.optionalText("message", "").startsWith("not authenticated"), refused::toString);
        }
        CliException e = assertThrows(CliException.class, () -> BenchClient.connect(address(), Optional.of(other)));
        assertEquals("the bench server at " + address() + " rejected this side's key 'k1': it holds a different key"
                + " under that id; use the same key file on both hosts", e.getMessage());
        assertTrue(e.detail().orElseThrow().contains("the server said (unauthenticated): not authenticated"),
                () -> e.detail().orElseThrow());
    }

    @Test
    void aChangedFrameEndsTheSessionAndTheClientLearnsWhy() throws Exception {
        start();
        try (RawClient c = new RawClient()) {
            assertEquals("welcome", c.hello(keys).type());
            byte[] ping = c.auth.seal(json(Message.of("ping")));
            ping[ping.length - 3] ^= 0x20;
            c.send(ping);
            Message error = ControlProtocol.readFrame(c.in, c.auth);
            assertEquals("error", error.type(), "sealed: the client can trust the reason");
            assertEquals("frame 1 from the client is not authenticated: changed, replayed, out of order, or sealed"
                    + " with another key", error.optionalText("message", ""));
            assertThrows(EOFException.class, () -> ControlProtocol.readFrame(c.in));
        }
        awaitLog("frame 1 from the client is not authenticated");
    }

    @Test
    void aFrameReplayedOnTheSameConnectionIsRefused() throws Exception {
        start();
        try (RawClient c = new RawClient()) {
            c.hello(keys);
            byte[] once = c.auth.seal(json(Message.of("ping")));
            c.send(once);
            assertEquals("ok", ControlProtocol.readFrame(c.in, c.auth).type());
            c.send(once);
            Message error = ControlProtocol.readFrame(c.in, c.auth);
            assertTrue(error.optionalText("message", "").startsWith("frame 2 from the client is not authenticated"),
                    error::toString);
        }
    }

    @Test
    void framesRecordedOnOneConnectionAreRefusedOnTheNext() throws Exception {
        start();
        byte[] hello;
        byte[] ping;
        try (RawClient first = new RawClient()) {
            first.auth = SessionAuth.client(keys, first.challenge.nonce());
            hello = first.auth.seal(json(Message.of("hello")));
            first.send(hello);
            assertEquals("welcome", ControlProtocol.readFrame(first.in, first.auth).type());
            ping = first.auth.seal(json(Message.of("ping")));
            first.send(ping);
            assertEquals("ok", ControlProtocol.readFrame(first.in, first.auth).type());
        }
        try (RawClient second = new RawClient()) {
            second.send(hello);
            second.send(ping);
            Message refused = ControlProtocol.readFrame(second.in);
            assertTrue(refused.optionalText("message", "").startsWith("not authenticated"), refused::toString);
            // hung up on (a reset, since the replayed ping was never read)
            assertThrows(IOException.class, () -> ControlProtocol.readFrame(second.in));
        }
        awaitLog("session 2 (");
        awaitLog("refused: the client's first frame is not authenticated by any key of this server [k1]");
    }

    @Test
    void aStreamConnectionWithoutTheKeysProofIsDropped() throws Exception {
        start();
        try (RawClient c = new RawClient()) {
            c.hello(keys);
            Message open = Message.of("open");
            open.node().put("backend", "loopback");
            open.node().put("numBlocks", 4);
            open.node().put("blockBytes", 4096);
            open.node().put("progress", "auto");
            int target = c.ask(open).integer("target", 1, 100);
            Message stream = Message.of("stream");
            stream.node().put("target", target);
            stream.node().put("op", "write");
            stream.node().put("window", 1);
            stream.node().put("batch", 1);
            stream.node().put("layout", "contiguous");
            stream.node().put("nanos", 1_000_000);
            long token = c.ask(stream).number("token", Long.MIN_VALUE, Long.MAX_VALUE);

            try (Socket forged = streamConnection(token, new byte[SessionAuth.TAG_BYTES])) {
                forged.setSoTimeout(20_000);
                assertEquals(-1, forged.getInputStream().read(), "the right token without the proof is hung up on");
            }
            awaitLog("dropped a stream connection from");
            assertTrue(log.toString().contains("with a wrong token or proof of the key"), log::toString);

            try (Socket real = streamConnection(token, c.auth.streamProof(token))) {
                real.shutdownOutput(); // nothing to send: the server counts 0 bytes
                real.setSoTimeout(20_000);
                assertEquals(0L, new DataInputStream(real.getInputStream()).readLong());
            }
            assertEquals(0, ControlProtocol.readFrame(c.in, c.auth).number("bytes", 0, Long.MAX_VALUE));
        }
    }

    private Socket streamConnection(long token, byte[] proof) throws IOException {
        Socket s = new Socket();
        s.connect(server.address(), 5_000);
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        ControlProtocol.writePreamble(out, ControlProtocol.KIND_STREAM);
        out.writeLong(token);
        out.write(proof);
        out.flush();
        return s;
    }

    @Test
    void aDescriptorChangedAfterSigningIsRefusedBeforeItIsParsed() {
        // a server whose descriptors are changed after its targets signed them, inside valid frames
        start(new DescriptorCodec() {
            @Override
            public byte[] encode(PeerDescriptor descriptor) {
                byte[] blob = descriptor.encode();
                blob[20] ^= 1;
                return blob;
            }

            @Override
            public PeerDescriptor decode(byte[] blob) {
                throw new UnsupportedOperationException("the server does not decode");
            }
        });
        try (BenchClient client = BenchClient.connect(address(), Optional.of(keys))) {
            CliException e = assertThrows(CliException.class, () -> client.open("loopback", 4, 4096,
                    ProgressMode.AUTO));
            assertEquals("the bench server at " + address() + " sent a descriptor that this side's key ring does not"
                    + " vouch for (changed after signing)", e.getMessage());
        }
    }

    @Test
    void anUnsignedDescriptorIsRefusedByAKeyedClient() {
        start(new DescriptorCodec() {
            @Override
            public byte[] encode(PeerDescriptor descriptor) {
                return descriptor.unsigned().encode();
            }

            @Override
            public PeerDescriptor decode(byte[] blob) {
                throw new UnsupportedOperationException("the server does not decode");
            }
        });
        try (BenchClient client = BenchClient.connect(address(), Optional.of(keys))) {
            CliException e = assertThrows(CliException.class, () -> client.open("loopback", 4, 4096,
                    ProgressMode.AUTO));
            assertTrue(e.getMessage().endsWith("does not vouch for (unsigned)"), e::getMessage);
        }
    }

    @Test
    void aFrameFromTheServerChangedOnTheWayIsRefusedByTheClient() throws Exception {
        start();
        // server frames: 0 challenge, 1 welcome, 2 the answer to the first request
        try (FrameProxy proxy = new FrameProxy(server.address(), (index, body, earlier) -> {
            if (index == 2) {
                byte[] changed = body.clone();
                changed[changed.length / 2] ^= 1;
                return changed;
            }
            return body;
        }); BenchClient client = BenchClient.connect(new HostPort("127.0.0.1", proxy.address().getPort()),
                Optional.of(keys))) {
            CliException e = assertThrows(CliException.class, () -> client.open("loopback", 4, 4096,
                    ProgressMode.AUTO));
            assertEquals("an answer of the bench server at 127.0.0.1:" + proxy.address().getPort() + " is not"
                    + " authenticated with this side's key: frame 1 from the server is not authenticated: changed,"
                    + " replayed, out of order, or sealed with another key", e.getMessage());
        }
    }

    @Test
    void aFrameFromTheServerReplayedOnTheWayIsRefusedByTheClient() throws Exception {
        start();
        // the answer to the second request is replaced with the answer to the first: both are 'ok'
        try (FrameProxy proxy = new FrameProxy(server.address(), (index, body, earlier) ->
                index == 3 ? earlier.get(2) : body);
                BenchClient client = BenchClient.connect(new HostPort("127.0.0.1", proxy.address().getPort()),
                        Optional.of(keys))) {
            client.closeTarget(9);
            CliException e = assertThrows(CliException.class, () -> client.closeTarget(9));
            assertTrue(e.getMessage().endsWith("frame 2 from the server is not authenticated: changed, replayed, out"
                    + " of order, or sealed with another key"), e::getMessage);
        }
    }

    @Test
    void theChallengeAndTheWireFormAreAsDocumented() throws Exception {
        start();
        try (RawClient c = new RawClient()) {
            assertEquals(SessionAuth.NONCE_BYTES, c.challenge.nonce().length);
            c.auth = SessionAuth.client(keys, c.challenge.nonce());
            byte[] json = json(Message.of("hello"));
            byte[] body = c.auth.seal(json);
            assertArrayEquals(json, Arrays.copyOfRange(body, 64, body.length), "nonce, tag, then the JSON");
            c.send(body);
            byte[] welcome = ControlProtocol.readBody(c.in);
            assertEquals('{', welcome[SessionAuth.TAG_BYTES], "tag, then the JSON");
            assertEquals("welcome", ControlProtocol.parse(c.auth.open(welcome)).type());
        }
    }
}
