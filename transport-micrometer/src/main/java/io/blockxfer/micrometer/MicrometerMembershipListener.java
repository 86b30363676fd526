package io.blockxfer.micrometer;

import io.blockxfer.directory.MembershipListener;
import io.blockxfer.directory.Refusal;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Publishes what a {@link io.blockxfer.directory.Membership} does as Micrometer meters, tagged by
 * {@code member} (this process's member id) and {@code prefix} (the deployment):
 * <ul>
 *   <li>{@code blockxfer.membership.members} (gauge of the members registered now);</li>
 *   <li>{@code blockxfer.membership.changes} (counter; change =
 *       added|updated|re-registered|removed|registration-failed);</li>
 *   <li>{@code blockxfer.membership.refusals} (counter; reason = one of {@link Refusal.Reason}, in lower
 *       case with dashes; every reason is registered at zero from the start);</li>
 *   <li>{@code blockxfer.membership.connection} (counter; change = disconnected|resumed|resynced);</li>
 *   <li>{@code blockxfer.membership.own} (counter; change =
 *       published|lease-lost|publish-failed|restored|superseded; restored: this process's entry,
 *       overwritten or deleted by someone else, written again under its lease; superseded: another
 *       process took its member id with a newer epoch, and it stopped publishing).</li>
 * </ul>
 * Use one instance per membership:
 * {@code Membership.builder(transport, directory).listener(new MicrometerMembershipListener(registry))}.
 * Meters are registered when the membership starts.
 *
 * <p><b>Thread safety:</b> thread-safe (the membership calls it from its own thread; the gauge is read
 * from the registry's).
 */
public final class MicrometerMembershipListener implements MembershipListener {

    private final MeterRegistry registry;
    private final AtomicLong members = new AtomicLong();
    private volatile @Nullable Meters meters;

    /** Meters in {@code registry}. */
    public MicrometerMembershipListener(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    private final class Meters {
        final Counter added;
        final Counter updated;
        final Counter reRegistered;
        final Counter removed;
        final Counter registrationFailed;
        final Map<Refusal.Reason, Counter> refusals = new EnumMap<>(Refusal.Reason.class);
        final Counter disconnected;
        final Counter resumed;
        final Counter resynced;
        final Counter published;
        final Counter leaseLost;
        final Counter publishFailed;
        final Counter restored;
        final Counter superseded;

        Meters(Tags tags) {
            Gauge.builder("blockxfer.membership.members", members, AtomicLong::get).tags(tags).register(registry);
            added = registry.counter("blockxfer.membership.changes", tags.and("change", "added"));
            updated = registry.counter("blockxfer.membership.changes", tags.and("change", "updated"));
            reRegistered = registry.counter("blockxfer.membership.changes", tags.and("change", "re-registered"));
            removed = registry.counter("blockxfer.membership.changes", tags.and("change", "removed"));
            registrationFailed = registry.counter("blockxfer.membership.changes",
                    tags.and("change", "registration-failed"));
            for (Refusal.Reason r : Refusal.Reason.values()) {
                refusals.put(r, registry.counter("blockxfer.membership.refusals", tags.and("reason", tag(r))));
            }
            disconnected = registry.counter("blockxfer.membership.connection", tags.and("change", "disconnected"));
            resumed = registry.counter("blockxfer.membership.connection", tags.and("change", "resumed"));
            resynced = registry.counter("blockxfer.membership.connection", tags.and("change", "resynced"));
            published = registry.counter("blockxfer.membership.own", tags.and("change", "published"));
            leaseLost = registry.counter("blockxfer.membership.own", tags.and("change", "lease-lost"));
            publishFailed = registry.counter("blockxfer.membership.own", tags.and("change", "publish-failed"));
            restored = registry.counter("blockxfer.membership.own", tags.and("change", "restored"));
            superseded = registry.counter("blockxfer.membership.own", tags.and("change", "superseded"));
        }
    }

    /** The tag value of a refusal reason: {@code BAD_MAC} becomes {@code bad-mac}. */
    static String tag(Refusal.Reason reason) {
        return reason.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    private Meters meters() {
        Meters m = meters;
        if (m == null) {
            m = new Meters(Tags.of("member", "unknown", "prefix", "unknown"));
            meters = m;
        }
        return m;
    }

    @Override
    public void membershipStarted(String memberId, String prefix) {
        meters = new Meters(Tags.of("member", memberId, "prefix", prefix));
    }

    @Override
    public void published(String memberId, long epoch) {
        meters().published.increment();
    }

    @Override
    public void leaseLost(String memberId, long epoch, String reason) {
        meters().leaseLost.increment();
    }

    @Override
    public void publishFailed(String memberId, Throwable cause) {
        meters().publishFailed.increment();
    }

    @Override
    public void entryRestored(String memberId, long epoch, String reason) {
        meters().restored.increment();
    }

    @Override
    public void memberAdded(String memberId, long epoch) {
        members.incrementAndGet();
        meters().added.increment();
    }

    @Override
    public void memberUpdated(String memberId, long epoch) {
        meters().updated.increment();
    }

    @Override
    public void memberReRegistered(String memberId, long epoch) {
        meters().reRegistered.increment();
    }

    @Override
    public void memberRemoved(String memberId, long epoch) {
        members.decrementAndGet();
        meters().removed.increment();
    }

    @Override
    public void registrationFailed(String memberId, long epoch, Throwable cause) {
        meters().registrationFailed.increment();
    }

    @Override
    public void refused(Refusal refusal) {
        Counter c = meters().refusals.get(refusal.reason());
        if (c != null) {
            c.increment();
        }
    }

    @Override
    public void entrySuperseded(String memberId, long epoch, long newerEpoch) {
        meters().superseded.increment();
    }

    @Override
    public void disconnected(String reason) {
        meters().disconnected.increment();
    }

    @Override
    public void reconnected(long revision, boolean resync) {
        (resync ? meters().resynced : meters().resumed).increment();
    }

    @Override
    public String toString() {
        return "MicrometerMembershipListener";
    }
}
