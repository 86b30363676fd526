package io.blockxfer.cli.internal.remote;

import io.blockxfer.cli.internal.CliException;
import io.blockxfer.cli.internal.HostPort;
import io.blockxfer.cli.internal.KeyFile;
import io.blockxfer.cli.internal.NotifyTally;
import io.blockxfer.cli.internal.SlotPlan;
import io.blockxfer.cli.internal.TakerStyle;
import io.blockxfer.cli.internal.WireProbe;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.ProgressMode;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.UnauthenticatedPeerException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * The initiator's end of the bench control channel ({@code bench --connect}): the session with a
 * {@link BenchServer}, one request at a time, each answered or failed as a {@link CliException}
 * (the server's long explanation as its detail). While the initiator measures, a daemon thread
 * pings the server every 20 s so the session does not look idle.
 *
 * <p><b>Thread safety:</b> thread-safe; requests are serialised.
 */
public final class BenchClient implements AutoCloseable {

    private static final int CONNECT_MILLIS = ClientHandshake.CONNECT_MILLIS;
    private static final int REPLY_MILLIS = (int) TimeUnit.MINUTES.toMillis(11);
    private static final long PING_SECONDS = 20;

    private final HostPort address;
    private final Connection connection;
    private final Welcome welcome;
    private final DescriptorCodec codec;
    private final ScheduledExecutorService pinger;
    private final HostClocks clocks = new HostClocks(this::clockSample);
    private boolean closed;

    /**
     * What the server said about itself.
     *
     * <p><b>Thread safety:</b> immutable.
     *
     * @param server its host name
     * @param cpus its processors
     * @param backends every backend it found, served or not
     * @param timesNotifications whether it times its targets' notifications ({@code clock}, {@code notify-arm},
     *     {@code notify-disarm}; not a server of an earlier version)
     */
    public record Welcome(String server, int cpus, List<ServedBackend> backends, boolean timesNotifications) {
    }

    /**
     * One backend as the server sees it.
     *
     * <p><b>Thread safety:</b> immutable.
     *
     * @param name the provider name
     * @param served whether the server opens targets of it
     * @param cause why not, or null
     * @param notifications whether its transports carry notifications there
     */
    public record ServedBackend(String name, boolean served, @Nullable String cause, boolean notifications) {
    }

    private BenchClient(HostPort address, Connection connection, Welcome welcome, DescriptorCodec codec) {
        this.address = address;
        this.connection = connection;
        this.welcome = welcome;
        this.codec = codec;
        this.pinger = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("bench-client-ping")
                .factory());
        // the pings end when close() shuts the executor down
        var unused = pinger.scheduleWithFixedDelay(this::ping, PING_SECONDS, PING_SECONDS, TimeUnit.SECONDS);
    }

    /**
     * Connects to a bench server and opens a session, authenticated with {@code keys} when present
     * (see {@link SessionAuth}); its descriptors are then checked against their key ring before
     * they are parsed.
     *
     * @throws CliException when it cannot be reached, is not a bench server of this version, or
     *     one side holds a key the other does not
     */
    public static BenchClient connect(HostPort address, Optional<KeyFile> keys) {
        ClientHandshake.Session session = ClientHandshake.open(address, keys);
        try {
            session.connection().readTimeout(REPLY_MILLIS);
            return new BenchClient(address, session.connection(), welcome(session.welcome()),
                    DescriptorCodec.of(keys.map(KeyFile::ring)));
        } catch (IOException e) {
            session.connection().close();
            throw new CliException("could not open a bench session with " + address + ": " + describe(e));
        }
    }

    private static Welcome welcome(Message m) throws ProtocolException {
        List<ServedBackend> backends = new ArrayList<>();
        JsonNode list = m.node().path("backends");
        if (!list.isArray()) {
            throw new ProtocolException("welcome: field 'backends' must be an array");
        }
        for (JsonNode b : list) {
            if (!b.path("name").isString() || !b.path("served").isBoolean()) {
                throw new ProtocolException("welcome: a backend without a name or 'served'");
            }
            backends.add(new ServedBackend(b.get("name").stringValue(), b.get("served").booleanValue(),
                    b.path("cause").isString() ? b.get("cause").stringValue() : null,
                    b.path("notifications").asBoolean(false)));
        }
        return new Welcome(m.optionalText("server", "?"), m.integer("cpus", 0, 1 << 20), List.copyOf(backends),
                m.node().path("notify").asBoolean(false));
    }

    /** The server's address as given. */
    public HostPort address() {
        return address;
    }

    /** What the server said about itself. */
    public Welcome welcome() {
        return welcome;
    }

    /** Opens a target; its id and descriptor. */
    public Opened open(String backend, int numBlocks, long blockBytes, ProgressMode progress) {
        Message m = Message.of("open");
        m.node().put("backend", backend).put("numBlocks", numBlocks).put("blockBytes", blockBytes)
                .put("progress", progress.name().toLowerCase(Locale.ROOT));
        Message reply = request(m, "opened");
        try {
            int id = reply.integer("target", 1, Integer.MAX_VALUE);
            PeerDescriptor d = codec.decode(reply.bytes("descriptor", PeerDescriptor.MAX_METADATA_BYTES + 4096));
            return new Opened(id, d);
        } catch (ProtocolException e) {
            throw broken(e);
        } catch (UnauthenticatedPeerException e) {
            throw new CliException("the bench server at " + address + " sent a descriptor that this side's key ring"
                    + " does not vouch for (" + e.reason().name().toLowerCase(Locale.ROOT).replace('_', ' ') + ")")
                    .withDetail(e.getMessage());
        } catch (RuntimeException e) {
            throw new CliException("the server at " + address + " sent an unusable descriptor: " + e.getMessage());
        }
    }

    /**
     * A target the server opened.
     *
     * <p><b>Thread safety:</b> immutable.
     *
     * @param target its id in the session
     * @param descriptor what the initiator registers
     */
    public record Opened(int target, PeerDescriptor descriptor) {
    }

    /** Fills a block of a target with a pattern. */
    public void fill(int target, int block, long seed) {
        Message m = Message.of("fill");
        m.node().put("target", target).put("block", block).put("seed", seed);
        request(m, "ok");
    }

    /** The first byte of a target's block that differs from a pattern, or -1. */
    public long mismatch(int target, int block, long seed) {
        Message m = Message.of("check");
        m.node().put("target", target).put("block", block).put("seed", seed);
        try {
            return request(m, "mismatch").number("at", -1, Long.MAX_VALUE);
        } catch (ProtocolException e) {
            throw broken(e);
        }
    }

    /** Memcpy of a plan's blocks on the server for about {@code nanos}. */
    public WireProbe.Rate remoteMemcpy(int target, TransferOp op, SlotPlan plan, long nanos) {
        Message reply = request(planned("memcpy", target, op, plan, nanos), "rate");
        try {
            return new WireProbe.Rate(reply.number("bytes", 0, Long.MAX_VALUE), reply.number("nanos", 0,
                    Long.MAX_VALUE));
        } catch (ProtocolException e) {
            throw broken(e);
        }
    }

    /**
     * The TCP ceiling: streams the plan's blocks between {@code local} (this host's region) and the
     * target's region for about {@code nanos}, pushed from here for a write and pulled for a read.
     */
    public synchronized WireProbe.Rate stream(int target, TransferOp op, SlotPlan plan, MemorySegment local,
            long blockBytes, long nanos) {
        Message ready = request(planned("stream", target, op, plan, nanos), "ready");
        long token;
        try {
            token = ready.number("token", Long.MIN_VALUE, Long.MAX_VALUE);
        } catch (ProtocolException e) {
            throw broken(e);
        }
        ByteBuffer[][] slots = WireStream.views(local, plan, true, blockBytes);
        long start;
        long bytes;
        long elapsed;
        try (SocketChannel ch = SocketChannel.open()) {
            ch.socket().connect(address.resolve(), CONNECT_MILLIS);
            Connection c = new Connection(ch);
            start = System.nanoTime();
            ControlProtocol.writePreamble(c.out(), ControlProtocol.KIND_STREAM);
            c.out().writeLong(token);
            c.out().write(connection.auth().streamProof(token));
            c.out().flush();
            bytes = op == TransferOp.WRITE ? WireStream.send(ch, slots, nanos) : WireStream.receive(ch, slots, nanos);
            elapsed = System.nanoTime() - start;
        } catch (IOException e) {
            throw new CliException("the TCP stream to " + address + " failed: " + describe(e));
        }
        Message done = await("streamed");
        try {
            done.number("bytes", 0, Long.MAX_VALUE);
        } catch (ProtocolException e) {
            throw broken(e);
        }
        return new WireProbe.Rate(bytes, elapsed);
    }

    /** The offset between this host's clock and the server's, estimated on demand. */
    HostClocks clocks() {
        return clocks;
    }

    /** One {@code clock} round trip, timed by this host's clock on both ends. */
    private synchronized HostClocks.Sample clockSample() {
        long sent = System.nanoTime();
        Message reply = request(Message.of("clock"), "clock");
        long received = System.nanoTime();
        try {
            return new HostClocks.Sample(sent, reply.number("nanos", Long.MIN_VALUE, Long.MAX_VALUE), received,
                    reply.optionalText("bootId").orElse(null));
        } catch (ProtocolException e) {
            throw broken(e);
        }
    }

    /**
     * Starts counting and timing a target's notifications stamped with {@code tag}, their submit
     * times read there as {@code submit + offsetNanos}, taken there in {@code style} (a server of an
     * earlier version, which does not read the style, takes them waiting).
     */
    public void armNotifications(int target, long tag, long offsetNanos, TakerStyle style) {
        Message m = Message.of("notify-arm");
        m.node().put("target", target).put("tag", tag).put("offsetNanos", offsetNanos)
                .put("taker", style.name().toLowerCase(Locale.ROOT));
        request(m, "ok");
    }

    /** What the target saw of the armed run, once {@code expected} notifications arrived or {@code limit} passed. */
    public NotifyTally disarmNotifications(int target, long expected, Duration limit) {
        Message m = Message.of("notify-disarm");
        m.node().put("target", target).put("expected", expected).put("limitMillis", limit.toMillis());
        Message reply = request(m, "tally");
        try {
            return NotifyTally.decode(reply.bytes("tally", NotifyTally.MAX_ENCODED_BYTES));
        } catch (ProtocolException e) {
            throw broken(e);
        } catch (IllegalArgumentException e) {
            throw broken(new ProtocolException("tally: " + e.getMessage()));
        }
    }

    /** Closes a target. */
    public void closeTarget(int target) {
        Message m = Message.of("close");
        m.node().put("target", target);
        request(m, "ok");
    }

    private static Message planned(String type, int target, TransferOp op, SlotPlan plan, long nanos) {
        Message m = Message.of(type);
        m.node().put("target", target).put("op", op.name().toLowerCase(Locale.ROOT)).put("window", plan.window())
                .put("batch", plan.batch()).put("layout", plan.layout().name().toLowerCase(Locale.ROOT))
                .put("nanos", nanos);
        return m;
    }

    /**
     * The server process's CPU time so far (all its threads), or -1 where it does not say (a server
     * of an earlier build) or the session broke.
     */
    public long serverCpuNanos() {
        try {
            Message reply = request(Message.of("ping"), "ok");
            return reply.node().has("cpuNanos") ? reply.number("cpuNanos", -1, Long.MAX_VALUE) : -1;
        } catch (ProtocolException | RuntimeException e) {
            return -1; // the next real request reports a broken session
        }
    }

    private void ping() {
        try {
            request(Message.of("ping"), "ok");
        } catch (RuntimeException ignored) {
            // the next real request reports a broken session
        }
    }

    /** Sends {@code m} and reads the answer, which must be of {@code expected} type. */
    private synchronized Message request(Message m, String expected) {
        if (closed) {
            throw new CliException("the bench session with " + address + " is closed");
        }
        try {
            connection.send(m);
        } catch (IOException e) {
            throw new CliException("lost the bench server at " + address + ": " + describe(e));
        }
        return await(expected);
    }

    private synchronized Message await(String expected) {
        Message reply;
        try {
            reply = connection.receive();
        } catch (UnauthenticatedFrameException e) {
            throw new CliException("an answer of the bench server at " + address + " is not authenticated with this"
                    + " side's key: " + e.getMessage());
        } catch (IOException e) {
            throw new CliException("lost the bench server at " + address + ": " + describe(e));
        }
        if (reply.type().equals("error")) {
            throw reply.failure(address, "says");
        }
        if (!reply.type().equals(expected)) {
            throw broken(new ProtocolException("expected '" + expected + "', got '" + reply.type() + "'"));
        }
        return reply;
    }

    private CliException broken(ProtocolException e) {
        return new CliException("the bench server at " + address + " broke the protocol: " + e.getMessage());
    }

    private static String describe(IOException e) {
        return ClientHandshake.describe(e);
    }

    /** Ends the session (the server closes its targets); idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        pinger.shutdownNow();
        try {
            try {
                connection.send(Message.of("bye"));
                connection.readTimeout(5_000);
                connection.receive();
            } catch (IOException ignored) {
                // the server ends the session when the connection closes anyway
            }
        } finally {
            closed = true;
            connection.close();
        }
    }
}
