package io.blockxfer.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.cli.internal.KeyFiles;
import io.blockxfer.cli.internal.remote.ControlProtocol;
import io.blockxfer.cli.internal.remote.Message;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The two-host bench between two processes on loopback: {@code bench --serve} in a child JVM,
 * {@code bench --connect} in this one, every available cross-process backend measured, with the
 * TCP ceiling and memcpy on both sides, without a deployment key and with one; the server serves
 * initiators one after another and leaves nothing behind when it is stopped with SIGTERM or SIGINT.
 */
class RemoteBenchTest {

    static final Pattern SERVING = Pattern.compile("serving (\\S.*) on (\\S+:\\d+) ");
    private static final Duration START = Duration.ofSeconds(60);

    @Test
    void measuresEveryCrossProcessBackendAgainstTheWireAndServesInitiatorsInTurn() throws Exception {
        List<String> backends = NativeBackends.crossProcess();
        try (CliProcess server = CliProcess.start(List.of(), Map.of(), "bench", "--serve", "--listen",
                "127.0.0.1:0")) {
            String address = server.await(SERVING, START).group(2);
            assertTrue(server.output().contains("blockxfer bench: warning: no deployment key (--key-file or"
                    + " BLOCKXFER_KEY_FILE): anyone who can reach " + address + " can drive this server"),
                    server::output);
            for (int initiator = 1; initiator <= 2; initiator++) {
                Cli.Result r = Cli.run("bench", "--connect", address, "--json", "--ops", "write,read", "--block-sizes",
                        "64K", "--batches", "4", "--window", "2", "--duration", "100ms");
                assertEquals(0, r.exitCode(), r::toString);
                assertTrue(r.err().contains("skipping loopback: --connect needs backends whose peers can live in"
                        + " different processes"), r::toString);
                List<JsonNode> rows = JsonTree.rows(r.out());
                assertEquals(Set.copyOf(backends), Set.copyOf(rows.stream().map(n -> n.get("backend").stringValue())
                        .toList()), r::toString);
                assertEquals(2 * backends.size(), rows.size(), r::toString);
                for (JsonNode row : rows) {
                    assertEquals("remote", row.get("placement").stringValue(), row::toString);
                    for (String field : List.of("gbPerSec", "transfersPerSec", "memcpyGbPerSec", "wireGbPerSec",
                            "wireRatio", "remoteMemcpyGbPerSec", "p999Micros", "targetCpuMicrosPerTransfer")) {
                        assertTrue(row.get(field).asDouble() > 0, () -> field + " in " + row);
                    }
                    assertEquals(row.get("gbPerSec").asDouble() / row.get("wireGbPerSec").asDouble(),
                            row.get("wireRatio").asDouble(), row.get("wireRatio").asDouble() * 1e-3, row::toString);
                }
                List<JsonNode> advice = BenchReports.assertRecommendationsAgreeWithRows(r.out());
                assertEquals(List.of("write", "read"), advice.stream().map(a -> a.get("op").stringValue()).toList(),
                        r::toString);
                for (JsonNode a : advice) {
                    assertTrue(a.get("line").stringValue().startsWith(a.get("op").stringValue() + " 64 KiB x 4: "),
                            a::toString);
                    assertEquals(backends.size() - 1, a.get("others").size(), a::toString);
                }
                server.await(Pattern.compile("session " + initiator + " .*ended by the client"), START);
            }
            Cli.Result table = Cli.run("bench", "--connect", address, "--backend", backends.getFirst(), "--ops",
                    "write", "--block-sizes", "16K,64K", "--batches", "2", "--window", "2", "--duration", "50ms");
            assertEquals(0, table.exitCode(), table::toString);
            assertTrue(table.out().contains("TCP GB/s") && table.out().contains("xTCP")
                    && table.out().contains("TARGET CPU us/T"), table::toString);
            for (String block : List.of("16 KiB", "64 KiB")) {
                assertTrue(table.out().lines().anyMatch(l -> l.startsWith("recommendation: write " + block + " x 2: "
                        + backends.getFirst()) && l.contains("of the TCP ceiling")), table::toString);
            }

            List<String> mapped = server.sharedMemoryMapped();
            server.signal("TERM");
            assertEquals(143, server.awaitExit(Duration.ofSeconds(30)), server::output);
            assertTrue(server.output().contains("stopped after 3 sessions"), server::output);
            OwnLines.assertOnlyOwn(server.output());
            assertNothingLeft(mapped, server.pid());
        }
    }

    /**
     * With a deployment key on both sides (the server's from {@code BLOCKXFER_KEY_FILE}, the
     * initiator's from {@code --key-file}) every cross-process backend is measured with signed
     * descriptors over authenticated frames; an initiator with another key is turned away with one
     * line, and the server serves on.
     */
    @Test
    void aKeyedServerAndInitiatorMeasureEveryCrossProcessBackend(@TempDir Path dir) throws Exception {
        List<String> backends = NativeBackends.crossProcess();
        byte[] key = KeyFiles.random(32);
        Path serverKey = KeyFiles.write(dir, "server.key", "rw-------", KeyFiles.line("k1", key));
        Path initiatorKey = KeyFiles.write(dir, "initiator.key", "r--------", "# a copy of the server's",
                KeyFiles.line("k1", key));
        try (CliProcess server = CliProcess.start(List.of(), Map.of("BLOCKXFER_KEY_FILE", serverKey.toString()),
                "bench", "--serve", "--listen", "127.0.0.1:0")) {
            Matcher serving = server.await(SERVING, START);
            String address = serving.group(2);
            assertTrue(server.output().contains("authenticated with key file "
                    + serverKey + " (from BLOCKXFER_KEY_FILE): signing key 'k1'"), server::output);
            assertFalse(server.output().contains("warning"), server::output);

            Cli.Result wrong = Cli.run("bench", "--connect", address, "--key-file",
                    KeyFiles.fresh(dir, "wrong.key", "k1").toString());
            assertEquals(1, wrong.exitCode(), wrong::toString);
            assertEquals(List.of("blockxfer bench: the bench server at " + address + " rejected this side's key 'k1':"
                    + " it holds a different key under that id; use the same key file on both hosts"),
                    wrong.errLines());

            Cli.Result r = Cli.run("bench", "--connect", address, "--key-file", initiatorKey.toString(), "--json",
                    "--ops", "write", "--block-sizes", "64K", "--batches", "4", "--window", "2", "--duration", "100ms");
            assertEquals(0, r.exitCode(), r::toString);
            List<JsonNode> rows = JsonTree.rows(r.out());
            assertEquals(Set.copyOf(backends), Set.copyOf(rows.stream().map(n -> n.get("backend").stringValue())
                    .toList()), r::toString);
            for (JsonNode row : rows) {
                assertTrue(row.get("gbPerSec").asDouble() > 0 && row.get("wireGbPerSec").asDouble() > 0,
                        row::toString);
            }
            assertEquals(1, BenchReports.assertRecommendationsAgreeWithRows(r.out()).size(), r::toString);
            server.await(Pattern.compile("session 2 .*authenticated with key 'k1'"), START);
            server.await(Pattern.compile("session 2 .*ended by the client"), START);
            assertTrue(server.output().contains("session 1 (") && server.output().contains("refused: the client's"
                    + " first frame is not authenticated"), server::output);

            List<String> mapped = server.sharedMemoryMapped();
            server.signal("TERM");
            assertEquals(143, server.awaitExit(Duration.ofSeconds(30)), server::output);
            assertNothingLeft(mapped, server.pid());
        }
    }

    /**
     * {@code --connect --notify}: the served target takes the notifications and reports their count
     * and arrival times back over the control channel; on one host both ends read one kernel clock,
     * so no offset is estimated and the clock error is 0.
     */
    @Test
    void aServedTargetReportsTheNotificationsOfEveryTransfer() throws Exception {
        String backend = NativeBackends.crossProcessWithNotifications().getFirst();
        try (CliProcess server = CliProcess.start(List.of(), Map.of(), "bench", "--serve", "--listen",
                "127.0.0.1:0", "--backend", backend)) {
            String address = server.await(SERVING, START).group(2);
            Cli.Result r = Cli.run("bench", "--connect", address, "--backend", backend, "--notify", "--json", "--ops",
                    "write,read", "--block-sizes", "4K", "--batches", "1", "--window", "2", "--duration", "100ms");
            assertEquals(0, r.exitCode(), r::toString);
            List<JsonNode> rows = JsonTree.rows(r.out());
            assertEquals(List.of("write false", "write true", "read false", "read true"), rows.stream()
                    .map(n -> n.get("op").stringValue() + " " + n.get("notify").booleanValue()).toList(), r::toString);
            for (JsonNode notified : List.of(rows.get(1), rows.get(3))) {
                assertEquals("remote", notified.get("placement").stringValue(), notified::toString);
                assertEquals(notified.get("transfers").asLong(), notified.get("notifications").asLong(),
                        notified::toString);
                assertTrue(notified.get("notifyP50Micros").asDouble() > 0, notified::toString);
                assertEquals(0.0, notified.get("clockErrorMicros").asDouble(), "one kernel, one clock: " + notified);
            }
            assertEquals(2, BenchReports.assertRecommendationsAgreeWithRows(r.out()).size(), r::toString);
            server.signal("TERM");
            assertEquals(143, server.awaitExit(Duration.ofSeconds(30)), server::output);
            OwnLines.assertOnlyOwn(server.output());
        }
    }

    /** Ctrl-C while an initiator holds a target: the server closes it and frees its memory before it exits. */
    @Test
    void ctrlCClosesTheTargetsOfTheCurrentSession() throws Exception {
        String backend = NativeBackends.crossProcess().getFirst();
        try (CliProcess server = CliProcess.start(List.of(), Map.of(), "bench", "--serve", "--listen", "127.0.0.1:0",
                "--backend", backend)) {
            Matcher serving = server.await(SERVING, START);
            assertTrue(server.output().contains("); Ctrl-C stops"), server::output);
            String[] hostPort = serving.group(2).split(":", -1);
            try (Socket s = new Socket(hostPort[0], Integer.parseInt(hostPort[1]))) {
                DataOutputStream out = new DataOutputStream(s.getOutputStream());
                DataInputStream in = new DataInputStream(s.getInputStream());
                ControlProtocol.writePreamble(out, ControlProtocol.KIND_CONTROL);
                assertEquals(ControlProtocol.VERSION, ControlProtocol.readServerPreamble(in));
                assertEquals("challenge", ControlProtocol.readFrame(in).type(), "a server without a key");
                ControlProtocol.writeFrame(out, Message.of("hello").node());
                assertEquals("welcome", ControlProtocol.readFrame(in).type());
                Message open = Message.of("open");
                open.node().put("backend", backend);
                open.node().put("numBlocks", 64);
                open.node().put("blockBytes", 65536);
                open.node().put("progress", "auto");
                ControlProtocol.writeFrame(out, open.node());
                assertEquals("opened", ControlProtocol.readFrame(in).type());
                List<String> mapped = server.sharedMemoryMapped();

                server.signal("INT");
                assertEquals(130, server.awaitExit(Duration.ofSeconds(30)), server::output);
                assertTrue(server.output().contains("closed 1 target"), server::output);
                assertTrue(server.output().contains("stopped after 1 session"), server::output);
                assertNothingLeft(mapped, server.pid());
            }
        }
    }

    /**
     * A server started with SIGINT ignored, as a background job of a script is: Ctrl-C cannot stop
     * it, its "serving" line says SIGTERM does, and SIGTERM does.
     */
    @Test
    void aServerThatIgnoresSigintSaysThatSigtermStopsIt() throws Exception {
        String backend = NativeBackends.crossProcess().getFirst();
        try (CliProcess server = CliProcess.startWithSigintIgnored("bench", "--serve", "--listen", "127.0.0.1:0",
                "--backend", backend)) {
            server.await(SERVING, START);
            assertTrue(server.output().contains("); SIGTERM stops (SIGINT is ignored in this process, as in a"
                    + " background job)"), server::output);
            server.signal("TERM");
            assertEquals(143, server.awaitExit(Duration.ofSeconds(30)), server::output);
        }
    }

    /** Every /dev/shm file the server had mapped is gone, and no SysV segment it created remains. */
    static void assertNothingLeft(List<String> mapped, long pid) throws IOException {
        for (String m : mapped) {
            if (m.startsWith("/dev/shm/")) {
                assertFalse(Files.exists(Path.of(m)), () -> m + " is left behind by the server");
            }
        }
        Path sysv = Path.of("/proc/sysvipc/shm");
        if (Files.isReadable(sysv)) {
            for (String line : Files.readAllLines(sysv).subList(1, Files.readAllLines(sysv).size())) {
                String[] f = line.trim().split("\\s+", -1);
                assertFalse(f.length > 4 && f[4].equals(Long.toString(pid)),
                        () -> "a SysV segment the server created is left behind: " + line);
            }
        }
    }
}
