package io.blockxfer.multihost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.tck.TckEnvironment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The short form of the service soak ({@code scripts/soak}): for each backend, one initiator
 * process churning three targets (a removal or re-add every 100 ms; every 15 s a SIGKILL and restart
 * of {@code t1} or {@code t2}, while {@code t3} lives for the whole run) for
 * {@code blockxfer.soak.seconds} (default 60), every write and read verified. It passes
 * when the soak's own verdict does (no id lost, duplicated or misrouted, no wrong byte, every
 * killed peer back and working, the initiator's fds, threads and RSS flat over the second half),
 * and, checked here again from outside, when every child process it started has ended and none of
 * their UCX POSIX segments is left.
 *
 * <p>A native backend unavailable here is skipped with the cause, or fails when
 * {@code blockxfer.tck.require} names it. {@code blockxfer.soak.backends} (default
 * {@code loopback,ucx,nixl}) chooses the backends; the others are skipped with that reason. The report of each run is in
 * {@code target/soak/<backend>/report.md}.
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class ServiceSoakTest {

    /** The RSS bound of the short form: 1 MiB/min steady, a one-time rise of 32 MiB. */
    static final String SHORT_FORM_RSS_BOUND = "1+32";

    // the backends side by side: the soak waits on its schedule and checks ids and bytes, not timings
    // (junit-platform.properties)
    @Execution(ExecutionMode.CONCURRENT)
    @ParameterizedTest(name = "service soak of {0}: ids exactly once, bytes verified, peers back, resources flat")
    @ValueSource(strings = {"loopback", "ucx", "nixl"})
    void soakPasses(String backend) throws Exception {
        String chosen = System.getProperty("blockxfer.soak.backends", "loopback,ucx,nixl");
        Assumptions.assumeTrue(Arrays.asList(chosen.replace(" ", "").split(",")).contains(backend),
                backend + " is not in blockxfer.soak.backends=" + chosen);
        long seconds = Long.parseLong(System.getProperty("blockxfer.soak.seconds", "60").trim());
        Path dir = Path.of("target", "soak", backend).toAbsolutePath();
        Files.createDirectories(dir);
        Path output = dir.resolve("output.txt");
        // the short form's RSS allowance: a one-time rise of 32 MiB instead of 16 (multihost-tests/README.md, "Resource
        // bounds"); NIXL's native steps of 10-20 MiB land in a 30-s second half, later with the three
        // soaks side by side. The 30-minute run keeps 16 MiB.
        Process soak = SoakLauncher.start(backend, dir, List.of("--seconds", Long.toString(seconds), "--sample-ms",
                "1000", "--rss-bound-mib", SHORT_FORM_RSS_BOUND), output.toFile());
        if (!soak.waitFor(seconds + 300, TimeUnit.SECONDS)) {
            soak.destroyForcibly(); // its targets exit when their control channels close
            soak.waitFor();
            fail(backend + ": the soak did not end within " + (seconds + 300) + " s; output: " + tail(output));
        }
        int status = soak.exitValue();
        Map<String, String> result = result(dir.resolve("result.txt"));
        if (status == ServiceSoak.UNAVAILABLE) {
            String cause = result.getOrDefault("cause", "unknown cause");
            if (TckEnvironment.fromSystem().requires(backend)) {
                fail(backend + " is unavailable but required by blockxfer.tck.require: " + cause);
            }
            Assumptions.abort(backend + " is unavailable here: " + cause);
        }
        assertEquals(ServiceSoak.PASSED, status, backend + ": the soak failed: " + result.getOrDefault("failures",
                "(no result)") + "\nreport: " + dir.resolve("report.md") + "\n" + tail(output));

        for (String pid : list(result.get("childPids"))) {
            assertFalse(ProcessHandle.of(Long.parseLong(pid)).map(ProcessHandle::isAlive).orElse(false),
                    backend + ": child process " + pid + " is still alive");
        }
        for (String f : list(result.get("shmFiles"))) {
            assertFalse(Files.exists(Path.of(f)), backend + ": " + f + " was left in /dev/shm");
        }
        assertEquals("0", result.get("lost"), backend + ": lost ids");
        assertEquals("0", result.get("dup"), backend + ": duplicated ids");
        assertEquals("0", result.get("foreign"), backend + ": misrouted ids");
        assertEquals("0", result.get("mismatches"), backend + ": wrong bytes");
        long kills = Long.parseLong(result.get("kills"));
        assertTrue(kills >= seconds / 15 - 1, backend + ": only " + kills + " kills in " + seconds + " s");
        for (String killed : list(result.get("killed"))) {
            assertFalse(killed.startsWith("t3#"), backend + ": the long-lived target t3 was killed: " + killed);
        }
        if (seconds >= 30) { // a kill every 15 s: one restarted peer at least had time to work
            assertTrue(Long.parseLong(result.get("workedAfterRestart")) >= 1,
                    backend + ": no restarted peer completed a transfer");
        }
        assertTrue(Long.parseLong(result.get("adds")) >= seconds, backend + ": only " + result.get("adds")
                + " re-adds in " + seconds + " s");
    }

    private static Map<String, String> result(Path file) throws IOException {
        Map<String, String> r = new LinkedHashMap<>();
        if (Files.exists(file)) {
            for (String line : Files.readAllLines(file)) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    r.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
        }
        return r;
    }

    private static List<String> list(String csv) {
        return csv == null || csv.isBlank() ? List.of() : Arrays.asList(csv.split(","));
    }

    private static String tail(Path file) throws IOException {
        if (!Files.exists(file)) {
            return "(no output)";
        }
        List<String> lines = Files.readAllLines(file);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    }
}
