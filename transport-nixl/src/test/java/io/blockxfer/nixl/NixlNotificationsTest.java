package io.blockxfer.nixl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.blockxfer.nixl.internal.NixlLibraryLocator;
import io.blockxfer.tck.process.ChildProcess;
import io.blockxfer.tck.process.ChildProcessException;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Why a wait on a NIXL transport is served by a status thread, not by NIXL's notifications (docs/waiting.md,
 * NIXL backend, "Waiting"): with NIXL's own Python API of the loaded wheel, two agents in one
 * process, the initiator posts a WRITE carrying a notification and watches both agents' queues.
 * The initiator never receives a notification of its own WRITE, and the target receives it from
 * the initiator's own calls: its post, when the WRITE ended inside it, or else only after the
 * initiator checked the transfer's status to its end (UCX's backend sends it from that check). The
 * initiator has to poll the status either way, so a notification cannot wake it.
 * Skipped with the cause when {@code python3} or the package is missing, unless
 * {@code -Dblockxfer.tck.require=nixl} makes that a failure.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NixlNotificationsTest {

    @Test
    void notificationsReachOnlyTheTargetAndOnlyAfterTheInitiatorCheckedTheStatus(@TempDir Path tmp)
            throws IOException {
        NixlTests.assumeNixl();
        Path natives = NixlTests.nativesDir();
        Path site = NixlLibraryLocator.fromSystem().locate().library().map(l -> l.toAbsolutePath().getParent()
                .getParent()).orElse(null);
        if (natives == null || site == null || !(Files.isDirectory(site.resolve("nixl_cu12"))
                || Files.isDirectory(site.resolve("nixl_cu13")))) {
            String skip = "no nixl_cu12/nixl_cu13 Python package beside the loaded library (" + site + ")";
            if (NixlTests.required()) {
                fail(skip + " (required by blockxfer.tck.require=nixl)");
            }
            Assumptions.abort(skip);
        }
        Path script = tmp.resolve("nixl_notif_probe.py");
        try (InputStream in = NixlNotificationsTest.class.getResourceAsStream("nixl_notif_probe.py")) {
            Files.copy(in, script);
        }
        // NIXL <= 1.3's Python API imports torch at module load; an empty module of that name stands in
        Path stubs = Files.createDirectories(tmp.resolve("stubs"));
        Files.writeString(stubs.resolve("torch.py"), "class Tensor:\n    pass\n");
        ChildProcess.Builder builder = ChildProcess.builder(List.of("python3", script.toString(), "4096",
                Long.toString(64 * 256 * 1024))).name("python3 nixl_notif_probe")
                .environment("PYTHONPATH", String.join(File.pathSeparator, List.of(site.toString(),
                        natives.resolve("python").toString(), stubs.toString())))
                .stderrTo(line -> { });
        if (System.getenv("UCX_NET_DEVICES") == null) {
            builder.environment("UCX_NET_DEVICES", "lo");
        }
        try (ChildProcess probe = builder.start()) {
            String first;
            try {
                first = probe.nextLine(Duration.ofSeconds(60));
            } catch (ChildProcessException e) {
                String skip = "the Python NIXL probe did not start: " + e.getMessage();
                if (NixlTests.required()) {
                    fail(skip + " (required by blockxfer.tck.require=nixl)");
                }
                Assumptions.abort(skip);
                return;
            }
            for (long size : new long[] {4096, 64 * 256 * 1024}) {
                String line = size == 4096 ? first : probe.nextLine(Duration.ofSeconds(60));
                String[] f = line.split(" ", -1);
                if (f.length != 10 || !f[0].equals("SIZE")) {
                    fail("the probe answered '" + line + "'; stderr: " + String.join("\n", probe.stderrTail()));
                }
                assertEquals(Long.toString(size), f[1], line);
                assertEquals("0", f[5], "the initiator received a notification of its own WRITE: " + line);
                boolean inline = Boolean.parseBoolean(f[3].toLowerCase(java.util.Locale.ROOT));
                if (!inline) {
                    assertEquals("0", f[7], "the target received the notification of a WRITE still in flight at its"
                            + " post before the initiator checked its status: " + line);
                }
                assertEquals(1, Integer.parseInt(f[7]) + Integer.parseInt(f[9]), "the target must receive the"
                        + " notification once, from the initiator's post (a WRITE that ended inside it) or status"
                        + " check: " + line);
            }
        }
    }
}
