package io.blockxfer.cli.internal.remote;

import io.blockxfer.cli.internal.BlockLayout;
import io.blockxfer.cli.internal.ByteSizes;
import io.blockxfer.cli.internal.CliException;
import io.blockxfer.cli.internal.CpuClock;
import io.blockxfer.cli.internal.ErrorHandlers;
import io.blockxfer.cli.internal.SlotPlan;
import io.blockxfer.cli.internal.TakerStyle;
import io.blockxfer.cli.internal.Tuning;
import io.blockxfer.cli.internal.WireProbe;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.ProgressMode;
import io.blockxfer.transport.ProviderInfo;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.TransportException;
import io.blockxfer.transport.spi.TransportProvider;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One initiator's session with a {@link BenchServer}: sends its challenge, accepts a hello only
 * when it is authenticated with the server's deployment key (when it has one, see
 * {@link SessionAuth}), answers its requests (see {@link ControlProtocol}) one at a time, and on its end (a {@code bye}, the connection closing, a
 * protocol violation, an idle minute or {@link #abort()}) closes every target it opened. A request
 * that cannot be done (an unknown backend, a region over the memory limit, a block out of range) is
 * answered with an {@code error} and changes nothing; the session goes on.
 *
 * <p><b>Thread safety:</b> runs on the server's thread; {@link #abort()} may be called from any
 * thread.
 */
final class ServerSession implements AutoCloseable {

    /** This process's CPU time, which {@code ping} reports. */
    private static final CpuClock CPU = CpuClock.ofThisProcess();

    /** The longest a client may stay silent; clients send a ping every 20 s while they measure. */
    static final int IDLE_MILLIS = 120_000;
    /** The longest the server waits for a client's hello, so a stranger cannot hold the server for long. */
    static final int HELLO_MILLIS = 10_000;
    private static final long MAX_NANOS = TimeUnit.MINUTES.toNanos(10);
    private static final Duration STREAM_ARRIVAL = Duration.ofSeconds(15);
    /** The longest a {@code notify-disarm} waits for a run's notifications. */
    private static final long MAX_ARRIVAL_MILLIS = 60_000;
    private static final SecureRandom TOKENS = new SecureRandom();

    private final BenchServer server;
    private final Connection connection;
    private final String name;
    private final Map<Integer, ServedTarget> targets = new LinkedHashMap<>();
    private volatile @Nullable Connection stream;
    private int nextTarget = 1;
    private long bytesHeld;

    ServerSession(BenchServer server, Connection connection, int number) {
        this.server = server;
        this.connection = connection;
        this.name = "session " + number + " (" + connection.peer() + ")";
    }

    /** Serves the session until it ends. */
    void run() {
        try {
            ControlProtocol.writeServerPreamble(connection.out());
            if (connection.preamble().version() != ControlProtocol.VERSION) {
                send(Message.error("this server speaks bench protocol " + ControlProtocol.VERSION + ", the client "
                        + connection.preamble().version() + "; use the same blockxfer version on both hosts", null));
                server.say(name + ": refused protocol version " + connection.preamble().version());
                return;
            }
            SessionAuth auth = server.config().newSessionAuth();
            send(Challenge.of(auth).toMessage());
            connection.authenticate(auth);
            connection.readTimeout(HELLO_MILLIS);
            Message hello = hello();
            if (hello == null) {
                return;
            }
            connection.readTimeout(IDLE_MILLIS);
            server.say(name + ": connected (" + hello.optionalText("client", "unnamed client")
                    + auth.keyId().map(id -> ", authenticated with key '" + id + "'").orElse(", unauthenticated")
                    + ")");
            send(welcome());
            while (!server.stopping()) {
                Message request = connection.receive();
                if (request.type().equals("bye")) {
                    send(Message.of("ok"));
                    server.say(name + ": ended by the client");
                    return;
                }
                send(answer(request));
            }
        } catch (EOFException e) {
            server.say(name + ": the client went away");
        } catch (SocketTimeoutException e) {
            server.say(name + ": no word from the client for " + IDLE_MILLIS / 1000 + " s; ending it");
        } catch (ProtocolException e) {
            server.say(name + ": " + e.getMessage() + "; ending it");
            trySend(Message.error(e.getMessage(), null));
        } catch (IOException e) {
            if (!server.stopping()) {
                server.say(name + ": connection failed: " + e.getMessage());
            }
        }
    }

    /**
     * The client's first frame, which must be a {@code hello}, authenticated when the server has a
     * key; null when the session ends here (logged, and the client told why in a plain frame).
     */
    private @Nullable Message hello() throws IOException {
        Message hello;
        try {
            hello = connection.receive();
        } catch (EOFException e) {
            server.say(name + ": the client went away before its hello" + (connection.auth().keyed()
                    ? " (a client without this server's key, or under another key id, gives up there)" : ""));
            return null;
        } catch (SocketTimeoutException e) {
            server.say(name + ": no hello within " + HELLO_MILLIS / 1000 + " s; ending it");
            return null;
        } catch (UnauthenticatedFrameException e) {
            server.say(name + ": refused: " + e.getMessage());
            trySend(Message.error("not authenticated: this server requires frames authenticated with its deployment key"
                    + " (key ids " + connection.auth().keyIds() + ")", e.getMessage()));
            return null;
        }
        if (hello.type().equals("error")) {
            server.say(name + ": the client refused the session: " + hello.optionalText("message", "no reason given"));
            return null;
        }
        if (!hello.type().equals("hello")) {
            throw new ProtocolException("the first frame must be 'hello', not '" + hello.type() + "'");
        }
        return hello;
    }

    private Message answer(Message request) throws IOException {
        try {
            return switch (request.type()) {
                case "open" -> open(request);
                case "fill" -> {
                    ServedTarget t = target(request);
                    t.fill(block(request, t), request.number("seed", Long.MIN_VALUE, Long.MAX_VALUE));
                    yield Message.of("ok");
                }
                case "check" -> {
                    ServedTarget t = target(request);
                    Message m = Message.of("mismatch");
                    m.node().put("at", t.mismatch(block(request, t), request.number("seed", Long.MIN_VALUE,
                            Long.MAX_VALUE)));
                    yield m;
                }
                case "memcpy" -> {
                    ServedTarget t = target(request);
                    WireProbe.Rate r = t.memcpy(request.op(), plan(request, t), nanos(request), server::stopping);
                    Message m = Message.of("rate");
                    m.node().put("bytes", r.bytes()).put("nanos", r.nanos());
                    yield m;
                }
                case "stream" -> stream(request);
                case "close" -> {
                    int id = request.integer("target", 1, Integer.MAX_VALUE);
                    ServedTarget t = targets.remove(id);
                    if (t != null) {
                        bytesHeld -= t.bytesHeld();
                        t.close();
                    }
                    yield Message.of("ok");
                }
                case "ping" -> {
                    // the server's own CPU time: the initiator asks before and after it measures
                    Message m = Message.of("ok");
                    m.node().put("cpuNanos", CPU.nanos());
                    yield m;
                }
                case "clock" -> HostClocks.answer();
                case "notify-arm" -> {
                    ServedTarget t = target(request);
                    t.arm(request.number("tag", Long.MIN_VALUE, Long.MAX_VALUE), request.number("offsetNanos",
                            Long.MIN_VALUE, Long.MAX_VALUE), takerStyle(request.optionalText("taker", "wait")));
                    yield Message.of("ok");
                }
                case "notify-disarm" -> {
                    ServedTarget t = target(request);
                    Message m = Message.of("tally");
                    m.putBytes("tally", t.disarm(request.number("expected", 0, Long.MAX_VALUE),
                            Duration.ofMillis(request.number("limitMillis", 0, MAX_ARRIVAL_MILLIS))).encode());
                    yield m;
                }
                default -> throw new ProtocolException("unknown request '" + request.type() + "'");
            };
        } catch (Refused e) {
            return Message.error(e.getMessage(), e.detail);
        } catch (CliException e) {
            return Message.error(e.getMessage(), e.detail().orElse(null));
        } catch (TransportException | IllegalArgumentException | IllegalStateException e) {
            return Message.error(request.type() + " failed: " + ErrorHandlers.oneLine(e.getMessage()), null);
        } catch (OutOfMemoryError e) {
            return Message.error(request.type() + " failed: out of memory on the server", null);
        }
    }

    private Message open(Message request) throws IOException {
        String backend = request.text("backend", 64);
        int numBlocks = request.integer("numBlocks", 1, Integer.MAX_VALUE);
        long blockBytes = request.number("blockBytes", 1, 1L << 40);
        ProgressMode progress = progress(request.text("progress", 32));
        TransportProvider provider = server.config().served(backend).orElseThrow(() -> new Refused(
                "this server does not serve backend '" + backend + "'", refusalOf(backend)));
        long needed;
        try {
            needed = Math.multiplyExact(2, Math.multiplyExact(numBlocks, blockBytes));
        } catch (ArithmeticException e) {
            throw new Refused("a region of " + numBlocks + " x " + blockBytes + " bytes is too large", null);
        }
        long limit = server.config().maxMemoryBytes();
        if (bytesHeld + needed > limit) {
            throw new Refused("a target of " + numBlocks + " x " + ByteSizes.format(blockBytes) + " needs "
                    + ByteSizes.format(needed) + " here (region and memcpy stand-in), over the server's limit of "
                    + ByteSizes.format(limit) + " with " + ByteSizes.format(bytesHeld) + " in use (--max-memory on"
                    + " the server)", null);
        }
        ServedTarget t = ServedTarget.open(provider, numBlocks, blockBytes,
                new Tuning(progress, server.config().options(), server.config().keyRing()), "bench-served");
        int id = nextTarget++;
        targets.put(id, t);
        bytesHeld += t.bytesHeld();
        server.say(name + ": opened " + backend + " target " + id + " of " + numBlocks + " x "
                + ByteSizes.format(blockBytes));
        Message m = Message.of("opened");
        m.node().put("target", id);
        m.putBytes("descriptor", server.config().codec().encode(t.transport().localDescriptor()));
        return m;
    }

    private Message stream(Message request) throws IOException {
        ServedTarget t = target(request);
        TransferOp op = request.op();
        SlotPlan plan = plan(request, t);
        long nanos = nanos(request);
        long token = TOKENS.nextLong();
        Message ready = Message.of("ready");
        ready.node().put("token", token);
        send(ready);
        ByteBuffer[][] slots = WireStream.views(t.transport().region().segment(), plan, false, t.blockBytes());
        long bytes;
        try (Connection c = server.acceptStream(token, connection.auth().streamProof(token), STREAM_ARRIVAL)) {
            stream = c;
            bytes = op == TransferOp.WRITE ? WireStream.receive(c.channel(), slots, nanos)
                    : WireStream.send(c.channel(), slots, nanos);
        } finally {
            stream = null;
        }
        Message m = Message.of("streamed");
        m.node().put("bytes", bytes);
        return m;
    }

    /** The style of {@code notify-arm}'s {@code taker}: {@code wait} or {@code spin}. */
    private static TakerStyle takerStyle(String name) throws ProtocolException {
        for (TakerStyle style : TakerStyle.values()) {
            if (style.name().toLowerCase(Locale.ROOT).equals(name)) {
                return style;
            }
        }
        throw new ProtocolException("notify-arm's taker must be 'wait' or 'spin', not '" + name + "'");
    }

    private ServedTarget target(Message request) throws IOException {
        int id = request.integer("target", 1, Integer.MAX_VALUE);
        ServedTarget t = targets.get(id);
        if (t == null) {
            throw new Refused("no open target " + id + " in this session", null);
        }
        return t;
    }

    private static int block(Message request, ServedTarget t) throws ProtocolException {
        return request.integer("block", 0, t.numBlocks() - 1);
    }

    private static long nanos(Message request) throws ProtocolException {
        return request.number("nanos", 1, MAX_NANOS);
    }

    private static SlotPlan plan(Message request, ServedTarget t) throws IOException {
        int window = request.integer("window", 1, 4096);
        int batch = request.integer("batch", 1, t.numBlocks());
        BlockLayout layout = request.layout();
        if ((long) window * batch > t.numBlocks()) {
            throw new Refused("a window of " + window + " x " + batch + " blocks does not fit a target of "
                    + t.numBlocks() + " blocks", null);
        }
        return SlotPlan.of(window, batch, layout);
    }

    private static ProgressMode progress(String name) throws ProtocolException {
        try {
            return ProgressMode.valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ProtocolException("unknown progress mode '" + name + "'");
        }
    }

    private String refusalOf(String backend) {
        for (ProviderInfo p : server.config().providers()) {
            if (p.name().equals(backend)) {
                return backend + ": " + server.config().refusal(p).orElse("served");
            }
        }
        return backend + ": no such provider on this host; it has " + server.config().providers().stream()
                .map(ProviderInfo::name).toList();
    }

    private Message welcome() {
        Message m = Message.of("welcome");
        ObjectNode n = m.node();
        n.put("server", ServerConfig.hostName());
        n.put("cpus", Runtime.getRuntime().availableProcessors());
        n.put("maxMemoryBytes", server.config().maxMemoryBytes());
        n.put("descriptors", server.config().codec().toString());
        n.put("notify", true); // answers clock, notify-arm and notify-disarm
        ArrayNode backends = n.putArray("backends");
        for (ProviderInfo p : server.config().providers()) {
            Optional<String> refusal = server.config().refusal(p);
            ObjectNode b = backends.addObject();
            b.put("name", p.name());
            b.put("served", refusal.isEmpty());
            b.put("cause", refusal.orElse(null));
            b.put("notifications", p.capabilities().contains(Capability.NOTIFICATIONS));
        }
        return m;
    }

    private void send(Message m) throws IOException {
        connection.send(m);
    }

    /**
     * Sends a last frame: sealed once the session key is agreed, plain before (a client without
     * the key could not read it otherwise, and it carries nothing but the reason).
     */
    private void trySend(Message m) {
        try {
            if (connection.auth().keyed() && !connection.auth().established()) {
                ControlProtocol.writeFrame(connection.out(), m.node());
            } else {
                send(m);
            }
        } catch (IOException ignored) {
            // the connection is going anyway
        }
    }

    /** Breaks a blocked read or write of this session (the server is stopping). */
    void abort() {
        connection.close();
        Connection s = stream;
        if (s != null) {
            s.close();
        }
    }

    /** Closes every target of the session, then the connection. */
    @Override
    public void close() {
        try {
            for (Map.Entry<Integer, ServedTarget> e : targets.entrySet()) {
                try {
                    e.getValue().close();
                } catch (RuntimeException ex) {
                    server.say(name + ": closing target " + e.getKey() + ": " + ErrorHandlers.oneLine(ex.getMessage()));
                }
            }
            if (!targets.isEmpty()) {
                server.say(name + ": closed " + targets.size() + " target" + (targets.size() == 1 ? "" : "s"));
            }
            targets.clear();
            bytesHeld = 0;
        } finally {
            connection.close();
        }
    }

    /**
     * A request this session will not do; answered with an {@code error}, the session goes on.
     *
     * <p><b>Thread safety:</b> immutable.
     */
    private static final class Refused extends IOException {
        private static final long serialVersionUID = 1L;
        private final @Nullable String detail;

        Refused(String message, @Nullable String detail) {
            super(message);
            this.detail = detail;
        }
    }
}
