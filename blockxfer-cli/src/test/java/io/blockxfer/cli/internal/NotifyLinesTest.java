package io.blockxfer.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The lines under a {@code bench --notify} table, exactly: one per notified row, its transfers/s
 * against its plain twin's, the target's latency against the initiator's, the clocks' error bound
 * between hosts, arrivals that fell short (and the drops that explain them), and the goals on
 * 1 x 4 KiB writes.
 */
class NotifyLinesTest {

    private static BenchRow row(String placement, long blockBytes, int batch, long transfers, double perSec,
            double p50, NotifyFigures notified) {
        return new BenchRow("ucx", "write", placement, "shuffled", "backoff", "auto", false, blockBytes, batch, 16,
                transfers, 0, 1, 1, 2, perSec, p50, p50 * 2, p50 * 3, p50 * 4, 0.5, Double.NaN, Double.NaN, 5,
                Double.NaN, Double.NaN, notified);
    }

    @Test
    void oneLinePerNotifiedRowAgainstItsPlainTwinAndTheGoals() {
        BenchRow plain = row("in-process", 4096, 1, 1000, 1000, 2.0, null);
        BenchRow met = row("in-process", 4096, 1, 950, 950, 2.0, new NotifyFigures(950, 0, 3.0, 5.0, 0, 1000));
        BenchRow slow = row("in-process", 4096, 1, 500, 500, 2.0, new NotifyFigures(480, 20, 5.0, 9.0, 0, 1000));
        BenchRow large = row("remote", 65536, 64, 100, 100, 40.0, new NotifyFigures(100, 0, 50.0, 60.0, 12.5, 125));
        assertEquals(List.of(
                "ucx write 4 KiB x 1: 0.95x the transfers/s without a notification; the target saw it at p50 3.0 us,"
                        + " 1.50x the initiator's p50 2.0 us (p99 5.0 against 4.0 us); goals >= 0.90x and <= 2x: met",
                "ucx write 4 KiB x 1: 0.50x the transfers/s without a notification; the target saw it at p50 5.0 us,"
                        + " 2.50x the initiator's p50 2.0 us (p99 9.0 against 4.0 us); 480 notifications arrived for"
                        + " 500 transfers, 20 dropped by the target's full queue (its taking thread fell behind);"
                        + " goals >= 0.90x and <= 2x: neither met",
                "ucx write 64 KiB x 64: 0.80x the transfers/s without a notification; the target saw it at p50 50.0"
                        + " us, 1.25x the initiator's p50 40.0 us (p99 60.0 against 80.0 us), +-12.5 us through the"
                        + " hosts' clocks"),
                NotifyLines.of(List.of(plain, met, slow, large)));
    }

    @Test
    void theLegendSaysWhereTheTargetsClockComesFromAndHowItsThreadTookThem() {
        for (Placement p : Placement.values()) {
            String legend = NotifyLines.legend(p, TakerStyle.WAIT);
            assertEquals(true, legend.startsWith("NOTIFY on = every transfer carries a 16-byte notification; NOTE"
                    + " P50/P99 = from the submit to that notification seen at the target (taken there by a thread"
                    + " waiting in pollNotifications)"), legend);
        }
        assertEquals(true, NotifyLines.legend(Placement.REMOTE, TakerStyle.WAIT).endsWith("estimated over the control"
                + " channel (none where both hosts share a kernel); clockErrorMicros bounds what the clocks may add or"
                + " take"));
        assertEquals(true, NotifyLines.legend(Placement.IN_PROCESS, TakerStyle.SPIN).contains("(taken there by a"
                + " thread spinning on pollNotifications, --notify-take spin)"));
    }
}
