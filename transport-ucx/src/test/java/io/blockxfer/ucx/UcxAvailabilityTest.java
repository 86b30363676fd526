package io.blockxfer.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The availability probe in fresh JVMs: the exact cause when UCX is missing or broken, the load
 * error kept (never swallowed), and the real library found without {@code LD_LIBRARY_PATH}.
 */
class UcxAvailabilityTest {

    @TempDir
    Path tmp;

    private static Map<String, String> probe(String... properties) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(UcxTestSupport.javaCommand(AvailabilityProbe.class.getName(),
                List.of(properties), List.of()))
                .redirectErrorStream(true);
        // only the system properties say where UCX is, so each case is exactly what it sets
        pb.environment().remove("BLOCKXFER_UCX_LIBDIR");
        pb.environment().remove("BLOCKXFER_NATIVES_DIR");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "probe did not end");
        assertEquals(0, p.exitValue(), "probe JVM failed:\n" + out);
        Map<String, String> r = new HashMap<>();
        for (String line : out.split("\n", -1)) {
            int sp = line.indexOf(' ');
            if (sp > 0 && line.substring(0, sp).matches("[A-Z]+")) {
                r.put(line.substring(0, sp), line.substring(sp + 1));
            }
        }
        return r;
    }

    @Test
    void theProjectsUcxLoadsWithoutLdLibraryPath() throws Exception {
        UcxTestSupport.requireUcx();
        Map<String, String> r = probe();
        assertEquals("true", r.get("AVAILABLE"), r.toString());
        assertTrue(r.get("VERSION").startsWith("1.18"), r.toString());
        assertTrue(System.getenv("LD_LIBRARY_PATH") == null
                || !System.getenv("LD_LIBRARY_PATH").contains("libucx"), "tests must not rely on LD_LIBRARY_PATH");
    }

    @Test
    void aLibraryDirectoryWithoutUcxNamesTheMissingFile() throws Exception {
        Path dir = tmp.resolve("ucx-lib");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("libucm.so.0"), "x");
        Map<String, String> r = probe("-Dblockxfer.ucx.libdir=" + dir);
        assertEquals("false", r.get("AVAILABLE"), r.toString());
        assertTrue(r.get("CAUSE").contains(dir.resolve("libucs.so.0").toString()), r.toString());
        assertTrue(r.get("ERROR").contains("LocationException"), "the cause must keep its error: " + r);
    }

    @Test
    void aBrokenLibraryNamesTheLoadError() throws Exception {
        Path dir = tmp.resolve("broken");
        Files.createDirectories(dir);
        for (String lib : List.of("libucm.so.0", "libucs.so.0", "libuct.so.0", "libucp.so.0")) {
            Files.writeString(dir.resolve(lib), "this is not an ELF file\n".repeat(64));
        }
        Map<String, String> r = probe("-Dblockxfer.ucx.libdir=" + dir);
        assertEquals("false", r.get("AVAILABLE"), r.toString());
        assertTrue(r.get("CAUSE").contains("loading " + dir.resolve("libucm.so.0")), r.toString());
        assertTrue(r.get("ERROR").startsWith("java.lang.UnsatisfiedLinkError"), r.toString());
        String loaderText = r.get("ERROR").substring(r.get("ERROR").indexOf(": ") + 2);
        assertTrue(r.get("CAUSE").contains(loaderText), "the cause must carry the loader's own text: " + r);
        assertTrue(loaderText.contains("ELF"), r.toString());
    }

    @Test
    void noUcxAnywhereSaysWhereItLooked() throws Exception {
        Path natives = tmp.resolve("natives");
        Files.createDirectories(natives);
        Map<String, String> r = probe("-Dblockxfer.natives.dir=" + natives, "-Dblockxfer.ucx.libdir=");
        if ("true".equals(r.get("AVAILABLE"))) {
            // this host has a system UCX >= 1.18: the fallback found it, which is what it is for
            return;
        }
        String cause = r.get("CAUSE");
        assertTrue(cause.contains(natives.toString()) && cause.contains("scripts/install-natives"), r.toString());
        assertTrue(cause.contains("libucp.so.0"), r.toString());
        assertTrue(!r.get("ERROR").equals("none"), "the cause must keep its error: " + r);
    }
}
