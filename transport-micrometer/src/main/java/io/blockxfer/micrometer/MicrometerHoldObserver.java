package io.blockxfer.micrometer;

import io.blockxfer.holds.HoldEnd;
import io.blockxfer.holds.HoldObserver;
import io.blockxfer.holds.Lease;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Publishes what {@link io.blockxfer.holds.Holds} do as Micrometer meters, tagged by {@code agent}
 * (the transport's agent name) and, where they apply, {@code peer} and {@code reason}:
 * <ul>
 *   <li>as an owner: {@code blockxfer.holds.held.blocks}, {@code blockxfer.holds.held.bytes} and
 *       {@code blockxfer.holds.live} (gauges per peer: what this process holds for it now);
 *       {@code blockxfer.holds.ended} (counter; reason = released|abandoned|expired|cancelled|
 *       peer-removed|closed, each registered at zero from the start) and
 *       {@code blockxfer.holds.held.time} (timer of creation to end; reason);
 *       {@code blockxfer.holds.renewals.granted} (counter per peer);</li>
 *   <li>as a holder: {@code blockxfer.holds.renewals.sent} and
 *       {@code blockxfer.holds.renewal.bytes} (counters per owner: the renewal traffic);
 *       {@code blockxfer.holds.leases.ended} (counter; reason = one of {@link Lease.EndReason});
 *       {@code blockxfer.holds.transfers.refused} (counter; reason: why the lease did not cover a
 *       transfer);</li>
 *   <li>{@code blockxfer.holds.messages.refused} (counter; why = malformed|unauthenticated|stale|
 *       wrong-peer).</li>
 * </ul>
 * Use one instance per {@link io.blockxfer.holds.Holds}:
 * {@code Holds.builder(transport).observer(new MicrometerHoldObserver(registry))}. A peer's meters
 * are created on its first hold and cached; they stay, at zero, after its holds end (one set per
 * peer this process ever lent to).
 *
 * <p><b>Thread safety:</b> thread-safe.
 */
public final class MicrometerHoldObserver implements HoldObserver {

    private final MeterRegistry registry;
    private final ConcurrentHashMap<String, PeerMeters> peers = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> byTag = new ConcurrentHashMap<>();
    private volatile Tags tags = Tags.of("agent", "unknown");
    private volatile Map<HoldEnd.Reason, Counter> ended = new EnumMap<>(HoldEnd.Reason.class);

    /** Meters in {@code registry}; they are registered when the holds are built. */
    public MicrometerHoldObserver(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    /** The owner's meters for one peer. */
    private final class PeerMeters {
        final AtomicLong blocks = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();
        final AtomicLong holds = new AtomicLong();
        final Counter renewals;

        PeerMeters(String peer) {
            Tags t = tags.and("peer", peer);
            Gauge.builder("blockxfer.holds.held.blocks", blocks, AtomicLong::get).tags(t).register(registry);
            Gauge.builder("blockxfer.holds.held.bytes", bytes, AtomicLong::get).tags(t).baseUnit("bytes")
                    .register(registry);
            Gauge.builder("blockxfer.holds.live", holds, AtomicLong::get).tags(t).register(registry);
            renewals = registry.counter("blockxfer.holds.renewals.granted", t);
        }
    }

    private Map<HoldEnd.Reason, Counter> endCounters(Tags t) {
        Map<HoldEnd.Reason, Counter> m = new EnumMap<>(HoldEnd.Reason.class);
        for (HoldEnd.Reason r : HoldEnd.Reason.values()) {
            m.put(r, registry.counter("blockxfer.holds.ended", t.and("reason", tag(r.name()))));
        }
        return m;
    }

    /** A tag value from a constant's name: {@code PEER_REMOVED} becomes {@code peer-removed}. */
    static String tag(String name) {
        return name.toLowerCase(Locale.ROOT).replace('_', '-');
    }

    private PeerMeters peer(String peer) {
        return peers.computeIfAbsent(peer, PeerMeters::new);
    }

    private Counter counter(String name, String key, String value, String peerTag, String peer) {
        return byTag.computeIfAbsent(name + '\0' + value + '\0' + peer, k -> registry.counter(name,
                peer.isEmpty() ? tags.and(key, value) : tags.and(key, value).and(peerTag, peer)));
    }

    @Override
    public void holdsOpened(String agent) {
        Tags t = Tags.of("agent", agent);
        tags = t;
        ended = endCounters(t);
    }

    @Override
    public void holdCreated(String peer, int blocks, long bytes) {
        PeerMeters m = peer(peer);
        m.blocks.addAndGet(blocks);
        m.bytes.addAndGet(bytes);
        m.holds.incrementAndGet();
    }

    @Override
    public void holdEnded(HoldEnd end) {
        PeerMeters m = peer(end.peer());
        m.blocks.addAndGet(-end.blockCount());
        m.bytes.addAndGet(-end.bytes());
        m.holds.decrementAndGet();
        Counter c = ended.get(end.reason());
        if (c == null) {
            ended = endCounters(tags);
            c = Objects.requireNonNull(ended.get(end.reason()));
        }
        c.increment();
        Timer.builder("blockxfer.holds.held.time").tags(tags.and("reason", tag(end.reason().name())))
                .register(registry).record(end.heldFor().toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void renewalsGranted(String peer, int holds) {
        peer(peer).renewals.increment(holds);
    }

    @Override
    public void renewalsSent(String owner, int holds, int messages, int bytes) {
        counter("blockxfer.holds.renewals.sent", "owner", owner, "", "").increment(holds);
        counter("blockxfer.holds.renewal.bytes", "owner", owner, "", "").increment(bytes);
    }

    @Override
    public void leaseEnded(String owner, Lease.EndReason reason, int blocks) {
        counter("blockxfer.holds.leases.ended", "reason", tag(reason.name()), "owner", owner).increment();
    }

    @Override
    public void transferRefused(String owner, Lease.EndReason why) {
        counter("blockxfer.holds.transfers.refused", "reason", tag(why.name()), "owner", owner).increment();
    }

    @Override
    public void messageRefused(String sender, String why) {
        counter("blockxfer.holds.messages.refused", "why", tag(why), "", "").increment();
    }

    @Override
    public String toString() {
        return "MicrometerHoldObserver";
    }
}
