package io.blockxfer.cli.internal;

import java.nio.ByteBuffer;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * What a target saw of one measured run's notifications: how many arrived, how many seemed to
 * arrive before their submit (possible only with an estimated clock offset between two hosts; they
 * are recorded as 0), how many its transport dropped meanwhile because its queue was full (the
 * taking thread fell behind), and the latency of each arrival from the initiator's submit to the
 * moment the target took it, in nanoseconds.
 *
 * <p><b>Thread safety:</b> not thread-safe (the histogram is mutable); one thread at a time.
 *
 * @param count notifications of the run that arrived
 * @param early of those, how many arrived before their submit by the clocks as corrected
 * @param dropped notifications the target's transport dropped, its queue full, while the run was armed
 * @param latencies submit to arrival, in nanoseconds
 */
public record NotifyTally(long count, long early, long dropped, Histogram latencies) {

    /** Latencies above this (an hour) are recorded as this. */
    public static final long HIGHEST_NANOS = 3_600_000_000_000L;
    /** The most bytes {@link #decode} accepts. */
    public static final int MAX_ENCODED_BYTES = 256 * 1024;

    /** An empty tally. */
    public static NotifyTally empty() {
        return new NotifyTally(0, 0, 0, histogram());
    }

    /** The histogram every tally records into: up to an hour, three significant digits. */
    static Histogram histogram() {
        return new Histogram(HIGHEST_NANOS, 3);
    }

    /** This tally and {@code other} together, in a new tally. */
    public NotifyTally plus(NotifyTally other) {
        Histogram sum = latencies.copy();
        sum.add(other.latencies);
        return new NotifyTally(count + other.count, early + other.early, dropped + other.dropped, sum);
    }

    /** The tally as bytes: count, early, dropped, then the histogram's compressed form. */
    public byte[] encode() {
        ByteBuffer buf = ByteBuffer.allocate(24 + latencies.getNeededByteBufferCapacity());
        buf.putLong(count).putLong(early).putLong(dropped);
        latencies.encodeIntoCompressedByteBuffer(buf);
        byte[] out = new byte[buf.position()];
        buf.flip().get(out);
        return out;
    }

    /**
     * The inverse of {@link #encode()}.
     *
     * @throws IllegalArgumentException when {@code bytes} is not an encoded tally
     */
    public static NotifyTally decode(byte[] bytes) {
        if (bytes.length < 24 || bytes.length > MAX_ENCODED_BYTES) {
            throw new IllegalArgumentException("a notification tally of " + bytes.length + " bytes");
        }
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        long count = buf.getLong();
        long early = buf.getLong();
        long dropped = buf.getLong();
        if (count < 0 || early < 0 || early > count || dropped < 0) {
            throw new IllegalArgumentException("a notification tally with counts " + count + ", " + early + " and "
                    + dropped);
        }
        Histogram h;
        try {
            h = Histogram.decodeFromCompressedByteBuffer(buf, HIGHEST_NANOS);
        } catch (DataFormatException | RuntimeException e) {
            throw new IllegalArgumentException("not a notification tally: " + e.getMessage(), e);
        }
        if (h.getTotalCount() != count) {
            throw new IllegalArgumentException("a notification tally of " + count + " with " + h.getTotalCount()
                    + " latencies");
        }
        return new NotifyTally(count, early, dropped, h);
    }
}
