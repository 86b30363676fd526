package io.blockxfer.cli.internal.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.transport.Transports;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The bench server's control channel against raw clients, in this JVM: versions, framing, strict
 * fields, refused requests that leave the session usable, and initiators served in turn. Needs no
 * native backend: requests that would open one are refused before anything is opened.
 */
class BenchServerProtocolTest {

    private final StringWriter log = new StringWriter();
    private BenchServer server;
    private Thread serving;

    @BeforeEach
    void start() {
        ServerConfig config = new ServerConfig(Transports.providers(getClass().getClassLoader()), List.of(), Map.of(),
                64L << 20, Optional.empty());
        server = BenchServer.bind(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 0), config, new PrintWriter(log, true));
        serving = Thread.ofPlatform().name("bench-server-under-test").start(server::serve);
    }

    @AfterEach
    void stop() throws InterruptedException {
        server.stop();
        assertTrue(server.awaitStopped(Duration.ofSeconds(30)), "the server stops");
        serving.join(10_000);
    }

    /** A raw control client. */
    private final class Client implements AutoCloseable {
        final Socket socket;
        final DataInputStream in;
        final DataOutputStream out;

        Client(int version) throws IOException {
            socket = new Socket();
            socket.connect(server.address(), 5_000);
            socket.setSoTimeout(20_000);
            in = new DataInputStream(socket.getInputStream());
            out = new DataOutputStream(socket.getOutputStream());
            out.write("BXBENCH".getBytes(StandardCharsets.US_ASCII));
            out.writeByte(version);
            out.writeByte(ControlProtocol.KIND_CONTROL);
            out.flush();
        }

        Message hello() throws IOException {
            assertEquals(ControlProtocol.VERSION, ControlProtocol.readServerPreamble(in));
            Challenge challenge = Challenge.from(ControlProtocol.readFrame(in));
            assertFalse(challenge.keyed(), "a server without a key says so");
            return ask(Message.of("hello"));
        }

        Message ask(Message m) throws IOException {
            ControlProtocol.writeFrame(out, m.node());
            return ControlProtocol.readFrame(in);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    @Test
    void welcomesAClientAndListsWhatItServes() throws IOException {
        try (Client c = new Client(ControlProtocol.VERSION)) {
            Message welcome = c.hello();
            assertEquals("welcome", welcome.type());
            assertTrue(welcome.node().path("backends").valueStream().anyMatch(b ->
                    b.path("name").stringValue().equals("loopback") && !b.path("served").booleanValue()
                            && b.path("cause").stringValue().contains("CROSS_PROCESS")), welcome::toString);
            assertEquals("ok", c.ask(Message.of("bye")).type());
        }
    }

    @Test
    void aClientOfAnotherVersionIsToldWhy() throws IOException {
        try (Client c = new Client(ControlProtocol.VERSION + 1)) {
            assertEquals(ControlProtocol.VERSION, ControlProtocol.readServerPreamble(c.in));
            Message error = ControlProtocol.readFrame(c.in);
            assertEquals("error", error.type());
            assertTrue(error.optionalText("message", "").contains("this server speaks bench protocol "
                    + ControlProtocol.VERSION), error::toString);
            assertThrows(EOFException.class, () -> ControlProtocol.readFrame(c.in), "then it hangs up");
        }
    }

    @Test
    void refusedRequestsAreErrorsAndTheSessionGoesOn() throws IOException {
        try (Client c = new Client(ControlProtocol.VERSION)) {
            c.hello();
            Message open = Message.of("open");
            open.node().put("backend", "loopback");
            open.node().put("numBlocks", 4);
            open.node().put("blockBytes", 4096);
            open.node().put("progress", "auto");
            Message refused = c.ask(open);
            assertEquals("error", refused.type());
            assertTrue(refused.optionalText("message", "").contains("does not serve backend 'loopback'"),
                    refused::toString);
            assertTrue(refused.optionalText("detail", "").contains("CROSS_PROCESS"), refused::toString);

            Message fill = Message.of("fill");
            fill.node().put("target", 7);
            fill.node().put("block", 0);
            fill.node().put("seed", 1);
            assertTrue(c.ask(fill).optionalText("message", "").contains("no open target 7"));

            Message pong = c.ask(Message.of("ping"));
            assertEquals("ok", pong.type(), "the session is still usable");
            assertTrue(pong.number("cpuNanos", 1, Long.MAX_VALUE) > 0, "a ping tells the server's CPU time: " + pong);
        }
    }

    @Test
    void aMalformedRequestEndsTheSessionButNotTheServer() throws IOException {
        try (Client c = new Client(ControlProtocol.VERSION)) {
            c.hello();
            Message open = Message.of("open");
            open.node().put("backend", "ucx");
            open.node().put("numBlocks", -5);
            Message error = c.ask(open);
            assertEquals("error", error.type());
            assertTrue(error.optionalText("message", "").contains("'numBlocks' is -5"), error::toString);
            assertThrows(EOFException.class, () -> ControlProtocol.readFrame(c.in));
        }
        try (Client c = new Client(ControlProtocol.VERSION)) {
            c.out.writeInt(ControlProtocol.MAX_FRAME_BYTES + 1);
            c.out.flush();
            assertEquals(ControlProtocol.VERSION, ControlProtocol.readServerPreamble(c.in));
            assertEquals("challenge", ControlProtocol.readFrame(c.in).type());
            Message error = ControlProtocol.readFrame(c.in);
            assertTrue(error.optionalText("message", "").contains("frame length"), error::toString);
        }
        try (Socket junk = new Socket()) {
            junk.connect(server.address(), 5_000);
            junk.getOutputStream().write("GET / HTT".getBytes(StandardCharsets.US_ASCII)); // 9 bytes, as a preamble
            junk.setSoTimeout(20_000);
            assertEquals(-1, junk.getInputStream().read(), "a stranger is hung up on");
        }
        try (Client c = new Client(ControlProtocol.VERSION)) {
            assertEquals("welcome", c.hello().type(), "the server still serves");
        }
        assertTrue(log.toString().contains("not a blockxfer bench client"), log::toString);
    }

    @Test
    void aSecondInitiatorWaitsForTheFirstToFinish() throws IOException {
        try (Client first = new Client(ControlProtocol.VERSION); Client second = new Client(ControlProtocol.VERSION)) {
            first.hello();
            second.socket.setSoTimeout(500);
            assertThrows(SocketTimeoutException.class, () -> ControlProtocol.readServerPreamble(second.in),
                    "no answer while the first is served");
            assertEquals("ok", first.ask(Message.of("bye")).type());
            second.socket.setSoTimeout(20_000);
            assertEquals("welcome", second.hello().type());
        }
        assertTrue(log.toString().contains("session 2"), log::toString);
    }
}
