package io.blockxfer.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The two-host bench between two network namespaces joined by a veth pair (198.18.77.0/30): the
 * server in one, the initiator in the other, UCX (the UCX backend's and NIXL's) forced onto TCP,
 * so the bytes cross the veth link. Creating namespaces needs root (CAP_NET_ADMIN and
 * CAP_SYS_ADMIN); where that fails the test is skipped with the reason.
 */
// full tier: the two-host bench between network namespaces joined by a veth pair, as root (CI's setting;
// skipped elsewhere); the fast tier runs the same bench between two processes on loopback (RemoteBenchTest)
@Tag("full")
class RemoteBenchNetnsTest {

    private static final String SERVER_ADDRESS = "198.18.77.2";
    private final String suffix = Long.toString(ProcessHandle.current().pid() % 100_000);
    private final String initiatorNs = "bxbench-" + suffix + "-a";
    private final String targetNs = "bxbench-" + suffix + "-b";
    private final List<String> created = new ArrayList<>();

    @BeforeEach
    void createNamespaces() throws Exception {
        String why = run("ip", "netns", "add", initiatorNs);
        Assumptions.assumeTrue(why == null, () -> "cannot create network namespaces here (needs root): " + why);
        created.add(initiatorNs);
        must("ip", "netns", "add", targetNs);
        created.add(targetNs);
        must("ip", "link", "add", "bxa" + suffix, "netns", initiatorNs, "type", "veth", "peer", "name", "bxb" + suffix,
                "netns", targetNs);
        must("ip", "-n", initiatorNs, "addr", "add", "198.18.77.1/30", "dev", "bxa" + suffix);
        must("ip", "-n", targetNs, "addr", "add", SERVER_ADDRESS + "/30", "dev", "bxb" + suffix);
        for (String ns : created) {
            must("ip", "-n", ns, "link", "set", "lo", "up");
        }
        must("ip", "-n", initiatorNs, "link", "set", "bxa" + suffix, "up");
        must("ip", "-n", targetNs, "link", "set", "bxb" + suffix, "up");
    }

    @AfterEach
    void deleteNamespaces() throws Exception {
        for (String ns : created) {
            run("ip", "netns", "del", ns);
        }
    }

    @Test
    void benchesAcrossAVethLinkBetweenTwoNamespaces() throws Exception {
        List<String> backends = NativeBackends.crossProcess();
        Map<String, String> tcp = Map.of("UCX_TLS", "tcp", "UCX_WARN_UNUSED_ENV_VARS", "n");
        try (CliProcess server = CliProcess.start(List.of("ip", "netns", "exec", targetNs), tcp, "bench", "--serve",
                "--listen", SERVER_ADDRESS + ":0")) {
            String address = server.await(RemoteBenchTest.SERVING, Duration.ofSeconds(60)).group(2);
            assertTrue(address.startsWith(SERVER_ADDRESS + ":"), address);
            try (CliProcess initiator = CliProcess.start(List.of("ip", "netns", "exec", initiatorNs), tcp, "bench",
                    "--connect", address, "--json", "--ops", "write", "--block-sizes", "64K", "--batches", "4",
                    "--window", "2", "--duration", "100ms")) {
                assertEquals(0, initiator.awaitExit(Duration.ofMinutes(3)), initiator::output);
                String json = json(initiator.output());
                List<JsonNode> rows = JsonTree.rows(json);
                assertEquals(Set.copyOf(backends), Set.copyOf(rows.stream().map(r -> r.get("backend").stringValue())
                        .toList()), initiator::output);
                for (JsonNode row : rows) {
                    assertTrue(row.get("gbPerSec").asDouble() > 0 && row.get("wireGbPerSec").asDouble() > 0,
                            row::toString);
                }
                BenchReports.assertRecommendationsAgreeWithRows(json);
            }
            server.signal("TERM");
            assertEquals(143, server.awaitExit(Duration.ofSeconds(30)), server::output);
            assertTrue(server.output().contains("session 1 (198.18.77.1:"), server::output);
        }
    }

    /**
     * The JSON report in the initiator's output, from its line <code>{</code> to its line
     * <code>}</code> (other lines are the backends' own log).
     */
    private static String json(String output) {
        List<String> lines = output.lines().toList();
        int start = lines.indexOf("{");
        int end = lines.lastIndexOf("}");
        if (start < 0 || end < start) {
            throw new AssertionError("no JSON report in:\n" + output);
        }
        return String.join("\n", lines.subList(start, end + 1));
    }

    private static void must(String... cmd) throws Exception {
        String error = run(cmd);
        if (error != null) {
            throw new AssertionError(String.join(" ", cmd) + " failed: " + error);
        }
    }

    /** Runs a command; null when it succeeded, else its output and status. */
    private static String run(String... cmd) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        } catch (IOException e) {
            return e.getMessage();
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return "timed out";
        }
        return p.exitValue() == 0 ? null : out + " (exit " + p.exitValue() + ")";
    }
}
