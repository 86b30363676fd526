package io.blockxfer.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code bench --notify}: every caller loop is measured again with a notification on every transfer,
 * its row after the plain one; the target counts one notification per transfer reported done and
 * times it from the submit; the option is refused where no measured backend carries notifications,
 * and backends without them get plain rows only, with a note. Behaviour, not timings.
 */
class NotifyBenchTest {

    private static final List<String> NOTIFY_FIELDS = List.of("notify", "notifications", "notifyP50Micros",
            "notifyP99Micros", "notifyP50OverP50", "vsPlain", "clockErrorMicros", "notificationsDropped");

    @Test
    void eachCallerLoopHasANotifiedTwinThatCountsOneNotificationPerTransfer() {
        Cli.Result r = Cli.run("bench", "--json", "--notify", "--ops", "write,read", "--block-sizes", "4K",
                "--batches", "1,4", "--window", "4", "--duration", "60ms", "--poll", "backoff,callback");
        assertEquals(0, r.exitCode(), r::toString);
        List<JsonNode> rows = JsonTree.rows(r.out());
        assertEquals(16, rows.size(), r::toString);
        for (int i = 0; i < rows.size(); i += 2) {
            JsonNode plain = rows.get(i);
            JsonNode notified = rows.get(i + 1);
            for (String same : List.of("backend", "op", "poll", "blockBytes", "batchBlocks", "window")) {
                assertEquals(plain.get(same), notified.get(same), () -> same + ": " + plain + " / " + notified);
            }
            assertFalse(plain.get("notify").booleanValue(), plain::toString);
            for (String field : NOTIFY_FIELDS.subList(1, NOTIFY_FIELDS.size())) {
                assertTrue(plain.get(field).isNull(), () -> field + " of a plain row: " + plain);
            }
            assertTrue(notified.get("notify").booleanValue(), notified::toString);
            assertEquals(notified.get("transfers").asLong(), notified.get("notifications").asLong(),
                    () -> "one notification per transfer reported done: " + notified);
            assertTrue(notified.get("transfers").asLong() > 0 && notified.get("failed").asLong() == 0,
                    notified::toString);
            double p50 = notified.get("notifyP50Micros").asDouble();
            assertTrue(p50 > 0 && p50 <= notified.get("notifyP99Micros").asDouble(), notified::toString);
            assertEquals(p50 / notified.get("p50Micros").asDouble(), notified.get("notifyP50OverP50").asDouble(),
                    notified.get("notifyP50OverP50").asDouble() * 1e-3, notified::toString);
            assertEquals(notified.get("transfersPerSec").asDouble() / plain.get("transfersPerSec").asDouble(),
                    notified.get("vsPlain").asDouble(), notified.get("vsPlain").asDouble() * 1e-3,
                    () -> "against the plain twin: " + plain + " / " + notified);
            assertEquals(0.0, notified.get("clockErrorMicros").asDouble(), "one process, one clock");
            assertEquals(0, notified.get("notificationsDropped").asLong(), notified::toString);
        }
        assertEquals(List.of("backoff", "backoff", "callback", "callback"), rows.subList(0, 4).stream()
                .map(n -> n.get("poll").stringValue()).toList(), r::toString);
    }

    @Test
    void theTableShowsTheNotificationColumnsTheirLegendAndALinePerNotifiedRow() {
        Cli.Result r = Cli.run("bench", "--notify", "--ops", "write", "--block-sizes", "4K", "--batches", "1",
                "--duration", "50ms");
        assertEquals(0, r.exitCode(), r::toString);
        String header = r.out().lines().filter(l -> l.startsWith("BACKEND")).findFirst().orElseThrow();
        for (String column : List.of("NOTIFY", "xPLAIN", "NOTE P50 us", "NOTE P99 us")) {
            assertTrue(header.contains(column), () -> column + " missing from " + header);
        }
        assertTrue(r.out().contains("NOTE P50/P99 = from the submit to that notification seen at the target"),
                r::toString);
        assertTrue(r.out().contains("one process, one clock"), r::toString);
        assertEquals(1, r.out().lines().filter(l -> l.startsWith("loopback  write  off")).count(), r::toString);
        assertEquals(1, r.out().lines().filter(l -> l.startsWith("loopback  write  on")).count(), r::toString);
        assertTrue(Pattern.compile("(?m)^notify: loopback write 4 KiB x 1: \\d+\\.\\d\\dx the transfers/s without a"
                + " notification; the target saw it at p50 .*; goals >= 0\\.90x and <= 2x: ").matcher(r.out()).find(),
                r::toString);

        Cli.Result plain = Cli.run("bench", "--ops", "write", "--block-sizes", "4K", "--batches", "1", "--duration",
                "20ms");
        assertEquals(0, plain.exitCode(), plain::toString);
        assertFalse(plain.out().contains("NOTIFY") || plain.out().contains("notify:"), "no notify columns without it");
    }

    @Test
    void csvHasTheNotificationFieldsWithEmptyCellsOnPlainRows() {
        Cli.Result r = Cli.run("bench", "--csv", "--notify", "--ops", "read", "--block-sizes", "4K", "--batches", "2",
                "--duration", "40ms");
        assertEquals(0, r.exitCode(), r::toString);
        List<String> lines = r.out().lines().toList();
        assertEquals(3, lines.size(), r::toString);
        List<String> columns = List.of(lines.getFirst().split(","));
        assertTrue(columns.containsAll(NOTIFY_FIELDS), r::toString);
        List<String> plain = List.of(lines.get(1).split(",", -1));
        List<String> notified = List.of(lines.get(2).split(",", -1));
        assertEquals("false", plain.get(columns.indexOf("notify")), r::toString);
        assertEquals("", plain.get(columns.indexOf("notifications")), r::toString);
        assertEquals("true", notified.get(columns.indexOf("notify")), r::toString);
        assertEquals(notified.get(columns.indexOf("transfers")), notified.get(columns.indexOf("notifications")),
                r::toString);
    }

    @Test
    void aBackendWithoutNotificationsGetsPlainRowsAndANoteAndAloneIsRefused(@TempDir Path dir) throws Exception {
        Path jar = ProviderJars.jar(dir, "SilentProvider", """
                package example;

                /** The loopback backend, declared without notifications. */
                public final class SilentProvider implements io.blockxfer.transport.spi.TransportProvider {
                    private final io.blockxfer.loopback.LoopbackProvider real = new io.blockxfer.loopback.LoopbackProvider();
                    public String name() { return "silent"; }
                    public int priority() { return 0; }
                    public io.blockxfer.transport.spi.Availability availability() { return real.availability(); }
                    public java.util.Set<io.blockxfer.transport.Capability> capabilities() {
                        java.util.Set<io.blockxfer.transport.Capability> c = java.util.EnumSet.copyOf(real.capabilities());
                        c.remove(io.blockxfer.transport.Capability.NOTIFICATIONS);
                        return c;
                    }
                    public io.blockxfer.transport.DataTransport open(io.blockxfer.transport.TransportConfig c) {
                        return real.open(c);
                    }
                }
                """);
        Cli.Result alone = Cli.run("bench", "--backend", "silent", "--classpath", jar.toString(), "--notify",
                "--duration", "10ms");
        assertEquals(2, alone.exitCode(), alone::toString);
        assertEquals(List.of("blockxfer bench: --notify needs a backend that carries notifications to its target:"
                + " silent does not carry notifications (it lacks NOTIFICATIONS)"), alone.errLines(), alone::toString);

        Cli.Result mixed = Cli.run("bench", "--backend", "loopback,silent", "--classpath", jar.toString(), "--notify",
                "--json", "--ops", "write", "--block-sizes", "4K", "--batches", "1", "--duration", "30ms");
        assertEquals(0, mixed.exitCode(), mixed::toString);
        assertTrue(mixed.err().contains("bench: no notified rows: silent does not carry notifications (it lacks"
                + " NOTIFICATIONS)"), mixed::toString);
        List<JsonNode> rows = JsonTree.rows(mixed.out());
        assertEquals(List.of("loopback false", "loopback true", "silent false"), rows.stream()
                .map(n -> n.get("backend").stringValue() + " " + n.get("notify").booleanValue()).toList(),
                mixed::toString);
        // recommendations choose among transfers without notifications only
        JsonNode advice = JsonTree.report(mixed.out()).get("recommendations");
        assertEquals(1, advice.size(), mixed::toString);
        assertEquals(1, advice.get(0).get("others").size(), mixed::toString);
    }

    @Test
    void aSpinningTakerIsAskedForWithNotifyTakeAndOnlyWithNotify() {
        Cli.Result r = Cli.run("bench", "--json", "--notify", "--notify-take", "spin", "--ops", "write",
                "--block-sizes", "4K", "--batches", "1", "--duration", "40ms");
        assertEquals(0, r.exitCode(), r::toString);
        List<JsonNode> rows = JsonTree.rows(r.out());
        assertEquals(2, rows.size(), r::toString);
        JsonNode notified = rows.get(1);
        assertTrue(notified.get("notify").booleanValue(), notified::toString);
        assertEquals(notified.get("transfers").asLong(), notified.get("notifications").asLong(),
                () -> "one notification per transfer reported done, taken by the spinning thread: " + notified);

        Cli.Result table = Cli.run("bench", "--notify", "--notify-take", "spin", "--ops", "write", "--block-sizes",
                "4K", "--batches", "1", "--duration", "20ms");
        assertEquals(0, table.exitCode(), table::toString);
        assertTrue(table.out().contains("taken there by a thread spinning on pollNotifications"), table::toString);

        Cli.Result alone = Cli.run("bench", "--notify-take", "spin", "--duration", "20ms");
        assertEquals(2, alone.exitCode(), alone::toString);
        assertEquals(List.of("blockxfer bench: --notify-take says how the target takes the notifications of --notify:"
                + " give --notify too"), alone.errLines(), alone::toString);
    }

    @Test
    void notifyIsTheInitiatorsOption() {
        Cli.Result r = Cli.run("bench", "--serve", "--listen", "127.0.0.1:0", "--notify");
        assertEquals(2, r.exitCode(), r::toString);
        assertEquals(List.of("blockxfer bench: --notify is for the initiator ('bench --connect'), not for --serve"),
                r.errLines(), r::toString);
    }

    /**
     * A target in a child process times the notifications by the same CLOCK_MONOTONIC as the initiator,
     * its thread taking them in the style the initiator asked for.
     */
    @Test
    void aTargetInAChildProcessCountsAndTimesTheNotifications() {
        String backend = NativeBackends.crossProcessWithNotifications().getFirst();
        Cli.Result r = Cli.run("bench", "--backend", backend, "--processes", "2", "--notify", "--notify-take", "spin",
                "--json", "--ops",
                "write", "--block-sizes", "4K", "--batches", "1", "--window", "2", "--duration", "100ms");
        assertEquals(0, r.exitCode(), r::toString);
        List<JsonNode> rows = JsonTree.rows(r.out());
        assertEquals(2, rows.size(), r::toString);
        JsonNode notified = rows.get(1);
        assertEquals("child-process", notified.get("placement").stringValue(), r::toString);
        assertTrue(notified.get("notify").booleanValue(), r::toString);
        assertEquals(notified.get("transfers").asLong(), notified.get("notifications").asLong(), r::toString);
        assertTrue(notified.get("notifyP50Micros").asDouble() > 0, r::toString);
        assertEquals(0.0, notified.get("clockErrorMicros").asDouble(), r::toString);
    }
}
