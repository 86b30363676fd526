package io.blockxfer.micrometer;

import io.blockxfer.transport.Notification;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.TransportObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Publishes a transport's observations as Micrometer meters, tagged by {@code backend}, {@code agent}
 * and {@code peer} (and {@code op}, {@code outcome} where they apply):
 * <ul>
 *   <li>{@code blockxfer.transfers} (counter; op, outcome = done|failed|cancelled) and
 *       {@code blockxfer.bytes} (counter of bytes of completed transfers; op);</li>
 *   <li>{@code blockxfer.transfer.latency} (timer with a percentile histogram; op, outcome);</li>
 *   <li>{@code blockxfer.inflight} (gauge of transfers submitted and not yet ended);</li>
 *   <li>{@code blockxfer.peer.failures} (counter of healthy-to-failing changes) and
 *       {@code blockxfer.peer.registration} (timer; outcome = published|failed);</li>
 *   <li>from a backend's own telemetry (NIXL): {@code blockxfer.native.post} and
 *       {@code blockxfer.native.transfer} (timers), {@code blockxfer.native.descriptors}
 *       (distribution summary);</li>
 *   <li>notifications: {@code blockxfer.notifications.sent} (counter; peer, kind =
 *       write|read|message), and, tagged by the transport alone because a sender's name is what the
 *       sender claims, {@code blockxfer.notifications.received} (counter; kind),
 *       {@code blockxfer.notifications.refused} (counter; reason = malformed|misdirected|unsigned|
 *       forged|replayed|stale|too_many_streams) and {@code blockxfer.notifications.dropped}
 *       (counter: the receiving queue was full).</li>
 * </ul>
 * Use one instance per transport: {@code TransportConfig.builder(...).observer(new
 * MicrometerTransportObserver(registry))}. Meters of a peer are created on its first observation
 * and cached, so the steady state looks them up without allocating.
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class MicrometerTransportObserver implements TransportObserver {

    private final MeterRegistry registry;
    private final boolean nativeTelemetry;
    private final ConcurrentHashMap<String, PeerMeters> peers = new ConcurrentHashMap<>();
    private volatile Tags transportTags = Tags.of("backend", "unknown", "agent", "unknown");
    private final ConcurrentHashMap<Notification.Kind, Counter> received = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> refused = new ConcurrentHashMap<>();
    private volatile @org.jspecify.annotations.Nullable Counter dropped;

    /** Meters in {@code registry}, including a backend's native telemetry. */
    public MicrometerTransportObserver(MeterRegistry registry) {
        this(registry, true);
    }

    /**
     * Meters in {@code registry}; {@code nativeTelemetry} asks the backend for its own per-transfer
     * telemetry, which costs a native call per completed transfer.
     */
    public MicrometerTransportObserver(MeterRegistry registry, boolean nativeTelemetry) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.nativeTelemetry = nativeTelemetry;
    }

    /** The meters of one direction of one peer. */
    private final class OpMeters {
        final Counter done;
        final Counter failed;
        final Counter cancelled;
        final Counter bytes;
        final Timer doneLatency;
        final Timer failedLatency;

        OpMeters(Tags tags, TransferOp op) {
            Tags t = tags.and("op", op.name().toLowerCase(java.util.Locale.ROOT));
            done = registry.counter("blockxfer.transfers", t.and("outcome", "done"));
            failed = registry.counter("blockxfer.transfers", t.and("outcome", "failed"));
            cancelled = registry.counter("blockxfer.transfers", t.and("outcome", "cancelled"));
            bytes = Counter.builder("blockxfer.bytes").baseUnit("bytes").tags(t).register(registry);
            doneLatency = latency(t.and("outcome", "done"));
            failedLatency = latency(t.and("outcome", "failed"));
        }

        private Timer latency(Tags tags) {
            return Timer.builder("blockxfer.transfer.latency").tags(tags).publishPercentileHistogram()
                    .register(registry);
        }
    }

    private final class PeerMeters {
        final OpMeters write;
        final OpMeters read;
        final AtomicLong inflight = new AtomicLong();
        final Counter failures;
        final Timer registered;
        final Timer registrationFailed;
        final Timer nativePost;
        final Timer nativeTransfer;
        final DistributionSummary nativeDescriptors;
        final ConcurrentHashMap<Notification.Kind, Counter> notificationsSent = new ConcurrentHashMap<>();
        final Tags tags;

        PeerMeters(String peer) {
            Tags tags = transportTags.and("peer", peer);
            this.tags = tags;
            write = new OpMeters(tags, TransferOp.WRITE);
            read = new OpMeters(tags, TransferOp.READ);
            Gauge.builder("blockxfer.inflight", inflight, AtomicLong::get).tags(tags).register(registry);
            failures = registry.counter("blockxfer.peer.failures", tags);
            registered = registry.timer("blockxfer.peer.registration", tags.and("outcome", "published"));
            registrationFailed = registry.timer("blockxfer.peer.registration", tags.and("outcome", "failed"));
            nativePost = registry.timer("blockxfer.native.post", tags);
            nativeTransfer = registry.timer("blockxfer.native.transfer", tags);
            nativeDescriptors = DistributionSummary.builder("blockxfer.native.descriptors").tags(tags)
                    .register(registry);
        }

        OpMeters of(TransferOp op) {
            return switch (op) {
                case WRITE -> write;
                case READ -> read;
            };
        }
    }

    private PeerMeters meters(String peer) {
        PeerMeters m = peers.get(peer);
        return m != null ? m : peers.computeIfAbsent(peer, PeerMeters::new);
    }

    @Override
    public void transportOpened(String backend, String agentName) {
        transportTags = Tags.of("backend", backend, "agent", agentName);
    }

    @Override
    public void transferSubmitted(String peerId, long transferId, TransferOp op, int blocks, long bytes) {
        meters(peerId).inflight.incrementAndGet();
    }

    @Override
    public void transferEnded(String peerId, long transferId, TransferOp op, int blocks, long bytes, long latencyNanos,
            boolean success) {
        PeerMeters m = meters(peerId);
        OpMeters o = m.of(op);
        m.inflight.decrementAndGet();
        if (success) {
            o.done.increment();
            o.bytes.increment((double) bytes);
            o.doneLatency.record(latencyNanos, TimeUnit.NANOSECONDS);
        } else {
            o.failed.increment();
            o.failedLatency.record(latencyNanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void transferCancelled(String peerId, long transferId, TransferOp op, boolean stillInFlight) {
        PeerMeters m = meters(peerId);
        m.inflight.decrementAndGet();
        m.of(op).cancelled.increment();
    }

    @Override
    public boolean wantsNativeTelemetry() {
        return nativeTelemetry;
    }

    @Override
    public void nativeTelemetry(String peerId, long transferId, long postMicros, long transferMicros, long bytes,
            long descriptors) {
        PeerMeters m = meters(peerId);
        m.nativePost.record(postMicros, TimeUnit.MICROSECONDS);
        m.nativeTransfer.record(transferMicros, TimeUnit.MICROSECONDS);
        m.nativeDescriptors.record((double) descriptors);
    }

    @Override
    public void peerRegistered(String peerId, int blocks, long durationNanos, boolean published) {
        PeerMeters m = meters(peerId);
        (published ? m.registered : m.registrationFailed).record(durationNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void peerFailing(String peerId, String reason) {
        meters(peerId).failures.increment();
    }

    @Override
    public void notificationSent(String peerId, Notification.Kind kind, long transferId, int bytes) {
        PeerMeters m = meters(peerId);
        Counter c = m.notificationsSent.get(kind);
        if (c == null) {
            c = m.notificationsSent.computeIfAbsent(kind, k -> registry.counter("blockxfer.notifications.sent",
                    m.tags.and("kind", lower(k.name()))));
        }
        c.increment();
    }

    @Override
    public void notificationReceived(String sender, Notification.Kind kind, long transferId, int bytes) {
        Counter c = received.get(kind);
        if (c == null) {
            c = received.computeIfAbsent(kind, k -> registry.counter("blockxfer.notifications.received",
                    transportTags.and("kind", lower(k.name()))));
        }
        c.increment();
    }

    @Override
    public void notificationRefused(String sender, String reason) {
        refused.computeIfAbsent(reason, r -> registry.counter("blockxfer.notifications.refused",
                transportTags.and("reason", lower(r)))).increment();
    }

    @Override
    public void notificationDropped(String sender) {
        Counter c = dropped;
        if (c == null) {
            c = registry.counter("blockxfer.notifications.dropped", transportTags);
            dropped = c;
        }
        c.increment();
    }

    private static String lower(String s) {
        return s.toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public String toString() {
        return "MicrometerTransportObserver" + transportTags;
    }
}
