package io.blockxfer.cli.internal;

import io.blockxfer.transport.TransferOp;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import org.HdrHistogram.Histogram;

/**
 * Measures the notifying twin of a caller loop ({@code bench --notify}): each measured run gets a
 * fresh tag, the target counts and times the notifications stamped with it, and once the run's
 * transfers are all reported the meter waits (outside the measured time) until as many
 * notifications arrived as transfers were reported done, or {@link #ARRIVAL} passed. The tallies of
 * the runs add up to the row's figures.
 *
 * <p><b>Thread safety:</b> not thread-safe; for the measuring thread.
 */
final class NotifyMeter {

    /** How long the target may take to see the last notifications of a run after its transfers ended. */
    static final Duration ARRIVAL = Duration.ofSeconds(10);

    private final TargetNotifications target;
    private final TakerStyle taker;
    private NotifyTally total = NotifyTally.empty();
    private long clockErrorNanos;

    NotifyMeter(TargetNotifications target, TakerStyle taker) {
        this.target = target;
        this.taker = taker;
    }

    /**
     * One transfer of {@code loop} whose notification must reach the target, once, within
     * {@link #ARRIVAL}; the loop's totals are reset afterwards.
     *
     * @throws CliException when it does not arrive, or arrives more than once
     */
    void verify(TransferLoop loop, String backend, TransferOp op) {
        NotifyTally t = measure(loop, 0);
        if (t.count() != 1 || loop.done() != 1) {
            throw new CliException(backend + ": " + (loop.done() != 1 ? "the first notified "
                    + op.name().toLowerCase(Locale.ROOT) + " transfer failed" : "the notification of a "
                    + op.name().toLowerCase(Locale.ROOT) + " reached its target " + t.count() + " times within "
                    + ARRIVAL.toSeconds() + " s instead of once"));
        }
        loop.reset();
    }

    /** Runs {@code loop} for {@code nanos} (at least one transfer) and adds what the target saw. */
    void run(TransferLoop loop, long nanos) {
        NotifyTally t = measure(loop, nanos);
        total = total.plus(t);
        clockErrorNanos = Math.max(clockErrorNanos, target.clockErrorNanos());
    }

    private NotifyTally measure(TransferLoop loop, long nanos) {
        long tag = freshTag();
        long before = loop.done();
        target.arm(tag, taker);
        loop.tag(tag);
        try {
            loop.run(nanos, 1);
        } finally {
            loop.tag(NotifyStamp.UNMEASURED);
        }
        return target.disarm(loop.done() - before, ARRIVAL);
    }

    private static long freshTag() {
        long tag;
        do {
            tag = ThreadLocalRandom.current().nextLong();
        } while (tag == NotifyStamp.UNMEASURED);
        return tag;
    }

    /** Notifications that seemed to arrive before their submit, by the clocks as corrected (recorded as 0). */
    long early() {
        return total.early();
    }

    /** The row's figures, beside {@code plainTransfersPerSec} of the same point without notifications. */
    NotifyFigures figures(double plainTransfersPerSec) {
        Histogram h = total.latencies();
        boolean any = total.count() > 0;
        return new NotifyFigures(total.count(), total.dropped(), any ? h.getValueAtPercentile(50) / 1e3 : Double.NaN,
                any ? h.getValueAtPercentile(99) / 1e3 : Double.NaN, clockErrorNanos / 1e3, plainTransfersPerSec);
    }
}
