package io.blockxfer.directory.internal;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerTraffic;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * The bound on the members held through resolution: past {@code maxHeld} the one idle longest (no
 * transfer submitted to it since it was last sampled, none in flight, by
 * {@link DataTransport#traffic}) is released, never one with transfers in flight or still being
 * resolved; while every held member is busy the set stays above its limit and is trimmed once one
 * is idle (sampled every second).
 *
 * <p><b>Thread safety:</b> confined to the membership's loop.
 */
final class HeldSet {

    /** How often the traffic of the members held through resolution is sampled. */
    static final long SAMPLE_NANOS = 1_000_000_000L;

    private final DataTransport transport;
    private final Registrations registrations;
    private final SerialLoop loop;
    private final Map<String, Resolution> resolutions;
    private final int maxHeld;
    private final BiConsumer<Resolution, String> release;
    private SerialLoop.@Nullable Timer sampler;

    /**
     * The bound of {@code maxHeld} on {@code resolutions} (the membership's, read here); a member
     * past it goes to {@code release} with the reason.
     */
    HeldSet(DataTransport transport, Registrations registrations, SerialLoop loop, Map<String, Resolution> resolutions,
            int maxHeld, BiConsumer<Resolution, String> release) {
        this.transport = transport;
        this.registrations = registrations;
        this.loop = loop;
        this.resolutions = resolutions;
        this.maxHeld = maxHeld;
        this.release = release;
    }

    /** A resolution started: the traffic is sampled every second from now on, while any is held. */
    void started() {
        if (sampler == null) {
            sampler = loop.schedule(this::onSample, SAMPLE_NANOS);
        }
    }

    /** Past the limit: releases the members idle longest, never one in flight or still resolving. */
    void trim() {
        if (resolutions.size() <= maxHeld) {
            return;
        }
        sample();
        while (resolutions.size() > maxHeld) {
            Resolution victim = null;
            for (Resolution r : resolutions.values()) {
                r.settle();
                // writable (its registration may have completed before the loop heard), nobody waiting, idle
                if (registrations.epochOf(r.id) == null || !r.waiters.isEmpty() || inFlight(r.id) > 0) {
                    continue;
                }
                if (victim == null || r.lastActive < victim.lastActive) {
                    victim = r;
                }
            }
            if (victim == null) {
                return; // every held member is busy: the sampler tries again in a second
            }
            release.accept(victim, "the held set passed its limit of " + maxHeld + " members, and this one had been"
                    + " idle longest");
        }
    }

    private int inFlight(String id) {
        try {
            return transport.traffic(id).map(PeerTraffic::inFlight).orElse(0);
        } catch (IllegalStateException e) {
            return 0; // the transport is closed
        }
    }

    /** Notes which resolved members submitted something, or have transfers in flight, since the last look. */
    private void sample() {
        long now = loop.ticker().nanos();
        for (Resolution r : resolutions.values()) {
            Optional<PeerTraffic> t;
            try {
                t = transport.traffic(r.id);
            } catch (IllegalStateException e) {
                return; // the transport is closed
            }
            if (t.isPresent() && (t.get().submitted() != r.lastSubmitted || t.get().inFlight() > 0)) {
                r.lastActive = now;
                r.lastSubmitted = t.get().submitted();
            }
        }
    }

    private void onSample() {
        sampler = null;
        if (resolutions.isEmpty()) {
            return;
        }
        sample();
        trim();
        started();
    }
}
