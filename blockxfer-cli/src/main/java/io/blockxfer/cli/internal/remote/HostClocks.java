package io.blockxfer.cli.internal.remote;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The offset between this host's {@link System#nanoTime()} and a bench server's, so that the
 * server can time a notification from the submit time the initiator stamped into it to its arrival
 * there ({@code bench --notify}). On Linux both clocks are {@code CLOCK_MONOTONIC}: one clock for
 * every process of one kernel, network namespaces and containers included, and an unrelated one
 * (counted from its own boot) on another host.
 *
 * <p>How: {@value #SAMPLES} {@code clock} requests over the control channel, each answered with the
 * server's clock read while the request was in flight. A sample sent at {@code t0} and answered at
 * {@code t2} (this host's clock) with {@code s} (the server's) bounds the offset, server minus here,
 * to {@code [s - t2, s - t0]}, whatever the delays each way; the estimate is the middle of the
 * intersection of every sample's bounds, and its error at most half that intersection's width,
 * which is at most half the fastest round trip (a frame each way: Jackson, an HMAC with a key, the
 * network). Clocks of two hosts also drift apart (tens of parts per million without NTP); an
 * estimate before and after each measured run bounds that too ({@code RemotePair}). Where both
 * hosts report the same kernel boot id and the first estimate's bounds hold 0, they share one
 * clock: the offset is 0, exactly, for the rest of the session; unless the system property
 * {@value #ESTIMATE_PROPERTY} is {@code true}, which estimates it anyway (on one host, where the true
 * offset is 0, that shows what the estimate is worth).
 *
 * <p><b>Thread safety:</b> not thread-safe; for the measuring thread.
 */
final class HostClocks {

    /** Round trips per estimate. */
    static final int SAMPLES = 16;
    /** The system property that has the initiator estimate the offset even where the kernel's clock is shared. */
    static final String ESTIMATE_PROPERTY = "blockxfer.bench.estimateClockOffset";
    private static final Path BOOT_ID = Path.of("/proc/sys/kernel/random/boot_id");

    private final Supplier<Sample> probe;
    private @Nullable Boolean shared;

    /**
     * One round trip.
     *
     * <p><b>Thread safety:</b> immutable.
     *
     * @param sentNanos this host's clock just before the request went out
     * @param serverNanos the server's clock while it answered
     * @param receivedNanos this host's clock just after the answer came in
     * @param bootId the server kernel's boot id, or null where it has none to tell
     */
    record Sample(long sentNanos, long serverNanos, long receivedNanos, @Nullable String bootId) {
    }

    /**
     * An estimated offset.
     *
     * <p><b>Thread safety:</b> immutable.
     *
     * @param offsetNanos the server's clock minus this host's
     * @param errorNanos how far the true offset may lie from it (0 for one shared clock)
     */
    record Estimate(long offsetNanos, long errorNanos) {
    }

    /** Estimates with round trips taken by {@code probe}. */
    HostClocks(Supplier<Sample> probe) {
        this.probe = probe;
    }

    /** The offset now: 0 for a shared clock, else from {@value #SAMPLES} fresh round trips. */
    Estimate estimate() {
        if (Boolean.TRUE.equals(shared)) {
            return new Estimate(0, 0);
        }
        List<Sample> samples = new java.util.ArrayList<>(SAMPLES);
        for (int i = 0; i < SAMPLES; i++) {
            samples.add(probe.get());
        }
        Estimate e = of(samples);
        if (shared == null) {
            Optional<String> here = bootId();
            String there = samples.getFirst().bootId();
            shared = !Boolean.getBoolean(ESTIMATE_PROPERTY) && here.isPresent() && here.get().equals(there)
                    && Math.abs(e.offsetNanos()) <= e.errorNanos();
            if (shared) {
                return new Estimate(0, 0);
            }
        }
        return e;
    }

    /** Whether the server was found to read this host's clock (after the first {@link #estimate()}). */
    boolean shared() {
        return Boolean.TRUE.equals(shared);
    }

    /** The estimate of {@code samples}: the middle of their bounds' intersection (of the fastest one's if none). */
    static Estimate of(List<Sample> samples) {
        long lo = Long.MIN_VALUE;
        long hi = Long.MAX_VALUE;
        Sample fastest = samples.getFirst();
        for (Sample s : samples) {
            lo = Math.max(lo, s.serverNanos() - s.receivedNanos());
            hi = Math.min(hi, s.serverNanos() - s.sentNanos());
            if (s.receivedNanos() - s.sentNanos() < fastest.receivedNanos() - fastest.sentNanos()) {
                fastest = s;
            }
        }
        if (lo > hi) { // the clocks drifted during the samples: the fastest round trip alone
            lo = fastest.serverNanos() - fastest.receivedNanos();
            hi = fastest.serverNanos() - fastest.sentNanos();
        }
        return new Estimate(lo + (hi - lo) / 2, (hi - lo + 1) / 2);
    }

    /** The server's answer to a {@code clock} request: its clock, read last, and its kernel's boot id. */
    static Message answer() {
        Message m = Message.of("clock");
        bootId().ifPresent(id -> m.node().put("bootId", id));
        m.node().put("nanos", System.nanoTime());
        return m;
    }

    /** This kernel's boot id (Linux), or empty where there is none to read. */
    static Optional<String> bootId() {
        try {
            String id = Files.readString(BOOT_ID, StandardCharsets.US_ASCII).strip();
            return id.isEmpty() || id.length() > 64 ? Optional.empty() : Optional.of(id);
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }
}
