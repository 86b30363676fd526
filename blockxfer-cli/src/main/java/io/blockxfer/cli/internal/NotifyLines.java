package io.blockxfer.cli.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The lines {@code bench --notify} prints under its table, one per row whose transfers carried
 * notifications: what a notification cost in transfers per second against the same point without
 * one, measured interleaved in the same run, and how late the target saw it against the initiator's
 * own completion; for 1 x 4 KiB writes, against the goals (at most 10 % of transfers/s, the target's
 * median within twice the initiator's).
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class NotifyLines {

    /** The goal's floor of transfers/s with a notification over transfers/s without, on 1 x 4 KiB writes. */
    public static final double GOAL_VS_PLAIN = 0.90;
    /** The goal's ceiling of the target's median over the initiator's median, on 1 x 4 KiB writes. */
    public static final double GOAL_P50_RATIO = 2.0;

    private NotifyLines() {
    }

    /**
     * What the notification columns mean, for the table's summary above it: where the target's
     * arrival times come from at this {@code placement}, and how the target's thread took them.
     */
    public static String legend(Placement placement, TakerStyle taker) {
        return "NOTIFY on = every transfer carries a " + NotifyStamp.BYTES + "-byte notification; NOTE P50/P99 = from"
                + " the submit to that notification seen at the target (taken there by a thread "
                + (taker == TakerStyle.WAIT ? "waiting in pollNotifications"
                        : "spinning on pollNotifications, --notify-take spin")
                + "), beside P50/P99 to the initiator's completion; xPLAIN = TRANSFERS/s over the"
                + " same point's without notifications, interleaved in the same run; " + switch (placement) {
                    case IN_PROCESS -> "one process, one clock";
                    case CHILD_PROCESS -> "the target process reads this host's CLOCK_MONOTONIC, as this one does";
                    case REMOTE -> "the target host's arrival times are corrected by the offset between the hosts'"
                            + " clocks, estimated over the control channel (none where both hosts share a kernel);"
                            + " clockErrorMicros bounds what the clocks may add or take";
                };
    }

    /** One line per notifying row, in the rows' order (empty when none notified). */
    public static List<String> of(List<BenchRow> rows) {
        boolean polls = rows.stream().map(BenchRow::poll).distinct().count() > 1;
        List<String> lines = new ArrayList<>();
        for (BenchRow r : rows) {
            NotifyFigures n = r.notified();
            if (n == null) {
                continue;
            }
            StringBuilder b = new StringBuilder();
            b.append(r.backend()).append(' ').append(r.op()).append(' ').append(ByteSizes.format(r.blockBytes()))
                    .append(" x ").append(r.batchBlocks());
            if (polls) {
                b.append(" (").append(r.poll()).append(" poll)");
            }
            b.append(String.format(Locale.ROOT, ": %.2fx the transfers/s without a notification", r.vsPlain()));
            b.append(String.format(Locale.ROOT, "; the target saw it at p50 %.1f us, %.2fx the initiator's p50"
                    + " %.1f us (p99 %.1f against %.1f us)", n.p50Micros(), r.notifyP50OverP50(), r.p50Micros(),
                    n.p99Micros(), r.p99Micros()));
            if (n.clockErrorMicros() > 0) {
                b.append(String.format(Locale.ROOT, ", +-%.1f us through the hosts' clocks", n.clockErrorMicros()));
            }
            if (n.notifications() != r.transfers() || n.dropped() > 0) {
                b.append("; ").append(n.notifications()).append(" notifications arrived for ").append(r.transfers())
                        .append(" transfers");
                if (n.dropped() > 0) {
                    b.append(", ").append(n.dropped()).append(" dropped by the target's full queue (its taking thread"
                            + " fell behind)");
                }
            }
            if (r.op().equals("write") && r.blockBytes() == 4096 && r.batchBlocks() == 1) {
                boolean cost = r.vsPlain() >= GOAL_VS_PLAIN;
                boolean late = r.notifyP50OverP50() <= GOAL_P50_RATIO;
                b.append(String.format(Locale.ROOT, "; goals >= %.2fx and <= %.0fx: %s", GOAL_VS_PLAIN, GOAL_P50_RATIO,
                        cost && late ? "met" : !cost && !late ? "neither met" : cost ? "the latency not met"
                                : "the transfers/s not met"));
            }
            lines.add(b.toString());
        }
        return lines;
    }
}
