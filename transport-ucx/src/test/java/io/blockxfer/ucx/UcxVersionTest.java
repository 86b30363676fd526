package io.blockxfer.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A real UCX newer than the certified 1.18.x ({@code libucx-cu12} 1.22.0, which
 * {@code scripts/install-natives ucx-uncertified} puts in {@code natives/ucx-uncertified}) is
 * refused with a cause that names the certified versions and how to get one, in a fresh JVM; the
 * {@value UcxOptions#ALLOW_UNCERTIFIED_PROPERTY} escape hatch loads it with a loud warning. Skipped
 * where that UCX is not installed, unless {@code blockxfer.tck.require} names
 * {@code ucx-uncertified} (as CI does).
 */
class UcxVersionTest {

    private Path uncertified;

    @BeforeEach
    void newerUcx() {
        UcxTestSupport.requireUcx();
        Path natives = Path.of(System.getProperty(UcxOptions.NATIVES_DIR_PROPERTY, "natives"));
        uncertified = natives.resolve("ucx-uncertified").resolve("libucx").resolve("lib");
        if (Files.isRegularFile(uncertified.resolve("libucp.so.0"))) {
            return;
        }
        String cause = "no uncertified UCX in " + uncertified + " (scripts/install-natives ucx-uncertified)";
        String required = System.getProperty("blockxfer.tck.require", "");
        if (required.isBlank()) {
            required = System.getenv().getOrDefault("BLOCKXFER_TCK_REQUIRE", "");
        }
        for (String r : required.split(",", -1)) {
            if (r.trim().equals("ucx-uncertified")) {
                fail(cause + " (required by blockxfer.tck.require)");
            }
        }
        Assumptions.abort(cause);
    }

    private static Map<String, String> probe(String... properties) throws Exception {
        Process p = new ProcessBuilder(UcxTestSupport.javaCommand(AvailabilityProbe.class.getName(),
                List.of(properties), List.of())).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "probe did not end");
        assertEquals(0, p.exitValue(), "probe JVM failed:\n" + out);
        Map<String, String> r = new HashMap<>();
        for (String line : out.split("\n", -1)) {
            int sp = line.indexOf(' ');
            if (sp > 0 && line.substring(0, sp).matches("[A-Z]+")) {
                r.put(line.substring(0, sp), line.substring(sp + 1));
            }
        }
        r.put("OUTPUT", out);
        return r;
    }

    @Test
    void aNewerUcxIsRefusedWithTheCertifiedVersionsAndHowToGetOne() throws Exception {
        Map<String, String> r = probe("-D" + UcxOptions.LIBDIR_PROPERTY + "=" + uncertified);
        assertEquals("false", r.get("AVAILABLE"), r.toString());
        String cause = r.get("CAUSE");
        assertTrue(cause.contains("UCX 1.22.0") && cause.contains("not certified"), cause);
        assertTrue(cause.contains("1.18.x") && cause.contains("scripts/install-natives ucx"), cause);
        assertTrue(cause.contains(UcxOptions.ALLOW_UNCERTIFIED_PROPERTY), cause);
        assertEquals("1.22.0", r.get("VERSION"), "the version found is reported");
    }

    @Test
    void theEscapeHatchRunsItWithALoudWarning() throws Exception {
        Map<String, String> r = probe("-D" + UcxOptions.LIBDIR_PROPERTY + "=" + uncertified,
                "-D" + UcxOptions.ALLOW_UNCERTIFIED_PROPERTY + "=true");
        assertEquals("true", r.get("AVAILABLE"), r.toString());
        assertTrue(r.get("OUTPUT").contains("RUNNING ON AN UNCERTIFIED UCX"), r.get("OUTPUT"));
    }

    @Test
    void thePinnedUcxNeedsNoEscapeHatch() throws Exception {
        Map<String, String> r = probe();
        assertEquals("true", r.get("AVAILABLE"), r.toString());
        assertTrue(r.get("VERSION").startsWith("1.18."), r.toString());
        assertTrue(!r.get("OUTPUT").contains("UNCERTIFIED"), r.get("OUTPUT"));
    }
}
