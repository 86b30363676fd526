package io.blockxfer.multihost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.dockerjava.api.DockerClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.output.OutputFrame;
import org.testcontainers.containers.startupcheck.OneShotStartupCheckStrategy;
import org.testcontainers.containers.wait.strategy.Wait;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The two-host bench between two containers: {@code blockxfer bench --serve} in one,
 * {@code blockxfer bench --connect} in the other over their Docker network (UCX on TCP over
 * {@code eth0}), every backend of the suite measured with the TCP ceiling between the containers;
 * then {@code docker kill --signal TERM} stops the server cleanly.
 */
// full tier: the multi-host suite: peers in Docker containers of the project's engine and peer image (.ci/run
// sets both up; without them it skips); the fast tier runs the peer program in this JVM
// (PeerSessionLoopbackTest)
@Tag("full")
@Tag("multihost")
@ExtendWith(PeerHostsCondition.class)
@Timeout(600)
class TwoHostBenchTest {

    private static final Pattern SERVING = Pattern.compile("serving .* on 0\\.0\\.0\\.0:7470 ");

    @Test
    void benchesEveryBackendBetweenTwoContainers() throws Exception {
        MultihostSettings settings = MultihostSettings.get();
        Preflight.problem().ifPresent(p -> {
            throw new AssertionError("blockxfer.multihost.require is set, but: " + p);
        });
        PeerClasspath classpath = PeerClasspath.read(settings.peerClasspath());
        if (classpath.entries().stream().noneMatch(e -> e.host().toString().contains("blockxfer-cli"))) {
            String why = "the command-line tool (blockxfer-cli) is not on the peers' class path " + settings.peerClasspath();
            if (settings.require()) {
                throw new AssertionError(why);
            }
            Assumptions.abort(why);
        }
        Map<String, String> env = Map.of("UCX_TLS", "tcp", "UCX_NET_DEVICES", "eth0", "UCX_WARN_UNUSED_ENV_VARS", "n");
        List<String> backends = settings.backends();
        Path logs = settings.reportDir().resolve("logs").resolve("two-host-bench");
        Files.createDirectories(logs);
        try (Network network = Network.newNetwork();
                BenchContainer server = new BenchContainer(settings, classpath, network, "bench-server", env,
                        List.of("bench", "--serve", "--listen", "0.0.0.0:7470", "--backend",
                                String.join(",", backends)))
                        .waitingFor(Wait.forLogMessage(".*serving .* on 0\\.0\\.0\\.0:7470 .*\\n", 1)
                                .withStartupTimeout(Duration.ofMinutes(2)))) {
            server.start();
            assertTrue(SERVING.matcher(server.getLogs()).find(), server::getLogs);
            String stdout;
            try (BenchContainer initiator = new BenchContainer(settings, classpath, network, "bench-initiator", env,
                    List.of("bench", "--connect", "bench-server:7470", "--backend", String.join(",", backends),
                            "--json", "--ops", "write,read", "--block-sizes", "64K,256K", "--batches", "4",
                            "--window", "2", "--duration", "200ms"))
                    .withStartupCheckStrategy(new OneShotStartupCheckStrategy()
                            .withTimeout(Duration.ofMinutes(5)))) {
                try {
                    initiator.start();
                } finally {
                    Files.writeString(logs.resolve("initiator.log"), initiator.getLogs());
                }
                stdout = initiator.getLogs(OutputFrame.OutputType.STDOUT);
            }
            JsonNode report = report(stdout);
            List<JsonNode> rows = report.get("rows").valueStream().toList();
            assertEquals(Set.copyOf(backends), Set.copyOf(rows.stream().map(r -> r.get("backend").stringValue())
                    .toList()), stdout);
            assertEquals(backends.size() * 2 * 2, rows.size(), stdout);
            for (JsonNode row : rows) {
                assertEquals("remote", row.get("placement").stringValue(), row::toString);
                for (String field : List.of("gbPerSec", "wireGbPerSec", "wireRatio", "memcpyGbPerSec",
                        "remoteMemcpyGbPerSec")) {
                    assertTrue(row.get(field).asDouble() > 0, () -> field + " in " + row);
                }
            }
            List<JsonNode> advice = report.get("recommendations").valueStream().toList();
            assertEquals(2 * 2, advice.size(), stdout);
            for (JsonNode a : advice) {
                assertTrue(backends.contains(a.get("backend").stringValue()) && a.get("ceiling").stringValue()
                        .equals("tcp") && a.get("ofCeiling").asDouble() > 0, a::toString);
            }

            DockerClient docker = DockerClientFactory.instance().client();
            docker.killContainerCmd(server.getContainerId()).withSignal("TERM").exec();
            long exit = awaitExit(docker, server.getContainerId(), Duration.ofSeconds(60));
            String serverLog = server.getLogs();
            Files.writeString(logs.resolve("server.log"), serverLog);
            assertEquals(143, exit, serverLog);
            assertTrue(serverLog.contains("session 1 ") && serverLog.contains("ended by the client"), serverLog);
            assertTrue(serverLog.contains("stopped after 1 session"), serverLog);
        }
    }

    /**
     * The JSON report the initiator printed: from its opening line <code>{</code> to its closing line
     * <code>}</code>; UCX's own warnings may come before or after.
     */
    private static JsonNode report(String stdout) {
        List<String> lines = stdout.lines().toList();
        int start = lines.indexOf("{");
        int end = lines.lastIndexOf("}");
        if (start < 0 || end < start) {
            throw new AssertionError("no JSON report from the initiator:\n" + stdout);
        }
        return JsonMapper.builder().build().readTree(String.join("\n", lines.subList(start, end + 1)));
    }

    private static long awaitExit(DockerClient docker, String id, Duration timeout) throws IOException,
            InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < end) {
            var state = docker.inspectContainerCmd(id).exec().getState();
            if (Boolean.FALSE.equals(state.getRunning())) {
                return state.getExitCodeLong();
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
        throw new AssertionError("the bench server did not exit within " + timeout + " of SIGTERM");
    }
}
