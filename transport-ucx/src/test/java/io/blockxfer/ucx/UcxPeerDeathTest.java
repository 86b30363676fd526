package io.blockxfer.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code kill -9} of a target process while WRITEs and READs stream to it and to a healthy second
 * target ({@link PeerDeathScenario}, in a child JVM whose exit status and stderr are judged): the
 * dead peer is detected within 2 s, every transfer that was in flight at the kill is reported
 * within 2 s, later ones fail, the healthy peer's transfers all complete and land byte for byte,
 * the JVM does not crash, and the log does not flood: JUCX's line per failed request never
 * appears. With the dying peer in caller memory its transfers are UCX requests. Killed mid-stream,
 * the requests in flight may still complete or the endpoint may fail before any is pending, so one
 * case first freezes the peer (SIGSTOP) for 300 ms: its requests then wait in UCX until the kill
 * fails them, JUCX has a line to write for each, and the filter must have dropped them.
 */
class UcxPeerDeathTest {

    private static final long BOUND_MILLIS = 2_000;
    /**
     * The backend logs a peer's failure once. Without stopping at the first failure it would be one
     * line per put, tens of thousands a second, and JUCX would add one per failed request.
     */
    private static final int MAX_LOG_LINES = 20;

    @ParameterizedTest(name = "dying peer in {0} memory, frozen {1} ms before the kill")
    @CsvSource({"allocated, 0", "caller, 0", "caller, 300"})
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void killedTargetFailsFastWithoutHurtingTheOtherPeer(String memory, long frozenMillis) throws Exception {
        UcxTestSupport.requireUcx();
        Path stderr = Files.createTempFile(ChildTemp.directory(), "peer-death", ".err");
        Process child = new ProcessBuilder(UcxTestSupport.javaCommand(PeerDeathScenario.class.getName(), List.of(),
                List.of("1000", "2500", memory, String.valueOf(frozenMillis))))
                .redirectError(stderr.toFile())
                .start();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "scenario did not end");
        List<String> log = Files.readAllLines(stderr, StandardCharsets.UTF_8);
        String logText = String.join("\n", log);
        assertEquals(0, child.exitValue(), "scenario JVM exited with " + child.exitValue() + "\nstdout:\n" + out
                + "\nstderr:\n" + logText);
        Map<String, Long> r = parse(out);
        assertNotNull(r.get("detectMs"), "no RESULT line in: " + out + "\nstderr:\n" + logText);
        String all = r + "\nstderr:\n" + logText;
        System.out.println("peer death: " + r + ", " + log.size() + " log lines");
        assertTrue(r.get("detectMs") >= 0 && r.get("detectMs") <= BOUND_MILLIS,
                "the dead peer's transfers began failing " + r.get("detectMs") + " ms after the kill: " + all);
        assertTrue(r.get("lastInFlightEndMs") <= BOUND_MILLIS,
                "a transfer in flight at the kill was reported " + r.get("lastInFlightEndMs") + " ms after it: " + all);
        assertEquals(0L, r.get("aPending"), "transfers to the dead peer never reported: " + all);
        assertTrue(r.get("aFailed") > 0, "nothing failed after the kill: " + all);
        assertEquals(0L, r.get("bFailed"), "the healthy peer had failures: " + all);
        assertEquals(0L, r.get("bPending"), "the healthy peer's transfers never reported: " + all);
        assertTrue(r.get("bDone") > 0, "the healthy peer completed nothing: " + all);
        assertEquals(0L, r.get("bMismatchedBlocks"), "the healthy peer's blocks differ: " + all);
        assertTrue(log.stream().noneMatch(l -> l.contains("JUCX: request error")),
                "JUCX logged failed requests: " + all);
        if (memory.equals("caller") && frozenMillis > 0) {
            assertTrue(r.get("aInFlightAtKill") > 0, "nothing was in flight to the frozen peer at the kill: " + all);
            assertTrue(r.get("jucxLinesDropped") > 0, "the frozen caller-memory peer's requests were in flight"
                    + " at the kill, yet none failed through JUCX's callback: " + all);
        }
        assertTrue(log.size() <= MAX_LOG_LINES, "the log flooded: " + log.size() + " lines:\n" + logText);
        try (var files = Files.list(Path.of("."))) {
            assertTrue(files.noneMatch(f -> f.getFileName().toString().startsWith("hs_err_pid" + child.pid())),
                    "the JVM left a crash report");
        }
    }

    private static Map<String, Long> parse(String out) throws IOException {
        Map<String, Long> values = new HashMap<>();
        for (String line : out.split("\n", -1)) {
            if (line.startsWith("RESULT ")) {
                for (String kv : line.substring(7).trim().split(" ", -1)) {
                    int eq = kv.indexOf('=');
                    values.put(kv.substring(0, eq), Long.parseLong(kv.substring(eq + 1)));
                }
            }
        }
        return values;
    }
}
