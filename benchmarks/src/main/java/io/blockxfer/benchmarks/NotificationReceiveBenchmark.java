package io.blockxfer.benchmarks;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.NotificationHandler;
import io.blockxfer.transport.NotificationStats;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.spi.ManagedTransport;
import io.blockxfer.transport.spi.NotificationSink;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The receive path of notifications alone, in frames per second: what a transport does with each
 * message its engine hands it (decode the frame, check its format and addressee, with a key ring
 * ({@code ring=hmac}) its HMAC-SHA-256 and freshness against replays, name its sender, and queue
 * it), without a backend. The frames are 16-byte notifications that another transport framed
 * (and signed) for this one, {@value #BATCH} made fresh before each invocation (a signed frame is
 * accepted once); after each invocation the queue is drained outside the measurement, and every
 * frame must have been queued. {@code ring=none} against {@code ring=hmac} is the MAC's cost.
 *
 * <p><b>Thread safety:</b> JMH state, one per benchmark thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xms512m", "-Xmx512m"})
public class NotificationReceiveBenchmark {

    /** Frames handed to the receive path per invocation. */
    static final int BATCH = 1024;
    private static final String PEER = "receiver";

    /** {@code none}: unsigned frames, no key ring; {@code hmac}: signed frames, checked with the ring. */
    @Param({"none", "hmac"})
    public String ring;

    private FrameEngine senderEngine;
    private FrameEngine receiverEngine;
    private ManagedTransport sender;
    private ManagedTransport receiver;
    private NotificationSink sink;
    private byte[][] frames;
    private final byte[] payload = new byte[16];
    private long delivered;
    private final NotificationHandler drain = n -> delivered++;

    /** For JMH. */
    public NotificationReceiveBenchmark() {
    }

    /** Opens the sender and the receiver, the receiver registered with the sender. */
    @Setup(Level.Trial)
    public void open() {
        byte[] key = new byte[DeploymentKeyRing.MIN_KEY_BYTES];
        new SecureRandom().nextBytes(key);
        DeploymentKeyRing keys = DeploymentKeyRing.of("bench", key);
        TransportConfig senderConfig = config("sender", keys);
        TransportConfig receiverConfig = config("receiver", keys);
        senderEngine = new FrameEngine(senderConfig);
        receiverEngine = new FrameEngine(receiverConfig);
        sender = new ManagedTransport(senderEngine, senderConfig, EnumSet.of(Capability.NOTIFICATIONS));
        receiver = new ManagedTransport(receiverEngine, receiverConfig, EnumSet.of(Capability.NOTIFICATIONS));
        sender.addPeer(PEER, receiver.localDescriptor());
        sink = receiverEngine.sink();
    }

    private TransportConfig config(String agent, DeploymentKeyRing keys) {
        TransportConfig.Builder b = TransportConfig.builder(RegionSpec.allocate(4, 4096)).agentName(agent);
        if (ring.equals("hmac")) {
            b.keyRing(keys);
        } else if (!ring.equals("none")) {
            throw new IllegalArgumentException("ring must be none or hmac, not " + ring);
        }
        return b.build();
    }

    /** Has the sender frame (and sign) {@value #BATCH} fresh notifications for the receiver. */
    @Setup(Level.Invocation)
    public void frame() {
        for (int i = 0; i < BATCH; i++) {
            payload[0] = (byte) i;
            if (!sender.sendNotification(PEER, payload)) {
                throw new IllegalStateException("the sender refused a notification");
            }
        }
        frames = senderEngine.takeSent();
    }

    /** Hands the batch to the receive path: decoded, checked and queued. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void receive() {
        for (byte[] f : frames) {
            sink.received(f, null, null);
        }
    }

    /** Drains the queue; every frame of the batch must have been queued. */
    @TearDown(Level.Invocation)
    public void drain() {
        long before = delivered;
        receiver.pollNotifications(drain);
        if (delivered - before != BATCH) {
            NotificationStats s = receiver.notificationStats();
            throw new IllegalStateException((delivered - before) + " of " + BATCH + " frames queued: " + s);
        }
    }

    /** Closes both transports. */
    @TearDown(Level.Trial)
    public void close() {
        try {
            sender.close();
        } finally {
            receiver.close();
        }
    }
}
