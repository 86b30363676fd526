package io.blockxfer.ucx.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.blockxfer.ucx.UcxTestSupport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A peer SIGKILLed while it writes into this transport's shared-memory receive queue leaves the
 * queue jammed for good: no message from any peer is received again ({@link ReceiveQueueJam}).
 * What the service soak found: from such a kill on, no READ completed for any peer, because UCX
 * serves a READ by messages through that queue. READs of UCX-allocated regions on one host copy
 * from the peer's mapped region instead, so the data path lives on: reads and writes of an existing
 * peer and of a peer added afterwards complete with the right bytes. A READ that UCX still serves
 * through the queue (a peer in caller memory) stalls, which shows that the queue is jammed. The
 * caller-memory peer then closes with its replies still queued in UCX: it must neither crash nor
 * leak UCX's requests (UCX 1.18 fails such queued replies through a path that crashes or leaks
 * them when their worker is destroyed), so it leaves its worker open. Run in a child JVM whose
 * stderr, UCX's log included, is judged.
 */
class UcxJammedReceiveQueueTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void readsAndWritesOfMappedPeersOutliveAJammedReceiveQueue() throws Exception {
        UcxTestSupport.requireUcx();
        Path dir = Path.of("target", "child-tmp").toAbsolutePath();
        Files.createDirectories(dir);
        Path stderr = Files.createTempFile(dir, "jammed-queue", ".err");
        Process child = new ProcessBuilder(UcxTestSupport.javaCommand(JammedQueueScenario.class.getName(),
                List.of(), List.of()))
                .redirectError(stderr.toFile())
                .start();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(90, TimeUnit.SECONDS), "scenario did not end");
        String log = Files.readString(stderr, StandardCharsets.UTF_8);
        String all = "stdout:\n" + out + "\nstderr:\n" + log;
        assertEquals(0, child.exitValue(), "scenario JVM exited with " + child.exitValue() + "\n" + all);
        Map<String, String> r = parse(out);
        assertEquals("done", r.get("readABefore"), all);
        assertEquals("done", r.get("readCBefore"), all);
        assertTrue(Integer.parseInt(r.getOrDefault("jammed", "0")) > 0, "no receive queue was jammed\n" + all);
        assertEquals("pending", r.get("readCAfter"), "a READ that UCX serves through the jammed queue completed:"
                + " the queue was not jammed, so the rest proves nothing\n" + all);
        assertEquals("done", r.get("readAAfter"), "READ of a mapped peer after the jam\n" + all);
        assertEquals("done", r.get("writeAAfter"), "WRITE to a mapped peer after the jam\n" + all);
        assertEquals("done", r.get("readBAfter"), "READ of a peer added after the jam\n" + all);
        assertEquals("done", r.get("writeBAfter"), "WRITE to a peer added after the jam\n" + all);
        assertFalse(log.contains("was not returned to mpool"), "UCX leaked requests at a close\n" + all);
        assertFalse(log.contains("JUCX: request error"), "JUCX logged a failed request\n" + all);
        try (var files = Files.list(Path.of("."))) {
            assertTrue(files.noneMatch(f -> f.getFileName().toString().startsWith("hs_err_pid" + child.pid())),
                    "the JVM left a crash report\n" + all);
        }
    }

    private static Map<String, String> parse(String out) {
        Map<String, String> values = new HashMap<>();
        for (String line : out.split("\n", -1)) {
            if (line.startsWith("RESULT ")) {
                for (String kv : line.substring(7).trim().split(" ", -1)) {
                    int eq = kv.indexOf('=');
                    values.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
            }
        }
        return values;
    }
}
