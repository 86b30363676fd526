package io.blockxfer.ucx.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where UCX is looked for, and the exact cause when it is not there; nothing is loaded. */
class UcxLocatorTest {

    @TempDir
    Path tmp;

    private static void libs(Path dir, String... names) throws IOException {
        Files.createDirectories(dir);
        for (String n : names) {
            Files.writeString(dir.resolve(n), "not a library");
        }
    }

    private UcxLocator.Location locate(Map<String, String> props, Map<String, String> env, Path cwd)
            throws UcxLocator.LocationException {
        return UcxLocator.locate(props::get, env::get, cwd);
    }

    @Test
    void explicitDirectoryWinsAndMustBeComplete() throws Exception {
        Path dir = tmp.resolve("ucx");
        libs(dir, "libucm.so.0", "libucs.so.0", "libuct.so.0", "libucp.so.0");
        Path natives = tmp.resolve("natives/ucx/libucx/lib");
        libs(natives, "libucm.so.0", "libucs.so.0", "libuct.so.0", "libucp.so.0");
        UcxLocator.Location l = locate(Map.of("blockxfer.ucx.libdir", dir.toString(),
                "blockxfer.natives.dir", tmp.resolve("natives").toString()), Map.of(), tmp);
        assertEquals(dir, l.dir());
        assertTrue(l.origin().contains("blockxfer.ucx.libdir"), l.origin());
    }

    @Test
    void explicitDirectoryMissingAFileNamesTheFile() throws Exception {
        Path dir = tmp.resolve("partial");
        libs(dir, "libucm.so.0");
        var e = assertThrows(UcxLocator.LocationException.class,
                () -> locate(Map.of("blockxfer.ucx.libdir", dir.toString()), Map.of(), tmp));
        assertTrue(e.getMessage().contains(dir.resolve("libucs.so.0").toString()), e.getMessage());
        assertTrue(e.getMessage().contains("blockxfer.ucx.libdir"), e.getMessage());
    }

    @Test
    void explicitDirectoryThatDoesNotExistIsNamed() {
        Path dir = tmp.resolve("nowhere");
        var e = assertThrows(UcxLocator.LocationException.class,
                () -> locate(Map.of(), Map.of("BLOCKXFER_UCX_LIBDIR", dir.toString()), tmp));
        assertTrue(e.getMessage().contains(dir.toString()) && e.getMessage().contains("does not exist"),
                e.getMessage());
        assertTrue(e.getMessage().contains("BLOCKXFER_UCX_LIBDIR"), e.getMessage());
    }

    @Test
    void propertyBeatsEnvironment() throws Exception {
        Path a = tmp.resolve("a");
        Path b = tmp.resolve("b");
        libs(a, "libucm.so.0", "libucs.so.0", "libuct.so.0", "libucp.so.0");
        libs(b, "libucm.so.0", "libucs.so.0", "libuct.so.0", "libucp.so.0");
        assertEquals(a, locate(Map.of("blockxfer.ucx.libdir", a.toString()),
                Map.of("BLOCKXFER_UCX_LIBDIR", b.toString()), tmp).dir());
        assertEquals(b, locate(Map.of(), Map.of("BLOCKXFER_UCX_LIBDIR", b.toString()), tmp).dir());
    }

    @Test
    void nativesFolderIsFoundWalkingUp() throws Exception {
        Path lib = tmp.resolve("repo/natives/ucx/libucx/lib");
        libs(lib, "libucm.so.0", "libucs.so.0", "libuct.so.0", "libucp.so.0");
        Path cwd = tmp.resolve("repo/module/sub");
        Files.createDirectories(cwd);
        UcxLocator.Location l = locate(Map.of(), Map.of(), cwd);
        assertEquals(lib, l.dir());
    }

    @Test
    void nativesFolderWithoutUcxFallsThroughToTheSystemAndIsRemembered() throws Exception {
        Path natives = tmp.resolve("natives");
        libs(natives.resolve("ucx/libucx/lib"), "libucm.so.0", "libucs.so.0");
        UcxLocator.Location l = locate(Map.of(), Map.of("BLOCKXFER_NATIVES_DIR", natives.toString()), tmp);
        assertTrue(l.isSystem());
        assertEquals(1, l.misses().size());
        assertTrue(l.misses().get(0).contains(natives.resolve("ucx/libucx/lib/libuct.so.0").toString()),
                l.misses().toString());
        assertTrue(l.misses().get(0).contains("scripts/install-natives"), l.misses().toString());
    }

    @Test
    void firstMissingFollowsLoadOrder() throws Exception {
        Path dir = tmp.resolve("d");
        libs(dir, "libucm.so.0", "libucs.so.0", "libuct.so.0");
        assertEquals("libucp.so.0", UcxLocator.firstMissing(dir));
        libs(dir, "libucp.so.0");
        assertNull(UcxLocator.firstMissing(dir));
    }

    @Test
    void tooOldUcxIsRefusedWithTheReason() {
        String why = UcxLibrary.versionProblem(new int[] {1, 13, 1}, "/usr/lib/x86_64-linux-gnu/libucp.so.0");
        assertTrue(why.contains("UCX 1.13.1") && why.contains("not certified") && why.contains("1.18.x")
                && why.contains("/usr/lib/x86_64-linux-gnu/libucp.so.0") && why.contains("Debian"), why);
        assertNull(UcxLibrary.versionProblem(new int[] {1, 18, 1}, "x"));
    }

    @Test
    void settingsPrecedenceAndValidation() {
        Map<String, String> none = Map.of();
        UcxSettings s = UcxSettings.resolve(Map.of("ucx.tls", "sm,self", "ucx.config.PROTO_INFO", "y"),
                Map.of("blockxfer.ucx.tls", "tcp", "blockxfer.ucx.net_devices", "lo")::get, none::get);
        assertEquals("sm,self", s.ucxConfig().get("TLS"));
        assertEquals("lo", s.ucxConfig().get("NET_DEVICES"));
        assertEquals("500ms", s.ucxConfig().get("KEEPALIVE_INTERVAL"));
        assertEquals("y", s.ucxConfig().get("MM_ERROR_HANDLING"));
        assertEquals("y", s.ucxConfig().get("PROTO_INFO"));
        assertNull(s.ucxConfig().get("RCACHE_ENABLE"), "with an RDMA device UCX keeps its own default");
        assertEquals("n", UcxSettings.resolve(Map.of(), none::get, none::get, false).ucxConfig().get("RCACHE_ENABLE"),
                "without one the registration cache is off");
        assertEquals("try", UcxSettings.resolve(Map.of("ucx.rcache", "try"), none::get, none::get, false)
                .ucxConfig().get("RCACHE_ENABLE"));
        assertNull(UcxSettings.resolve(Map.of(), none::get, Map.of("UCX_RCACHE_ENABLE", "y")::get, false)
                .ucxConfig().get("RCACHE_ENABLE"), "UCX reads its own variable");
        UcxSettings fromEnv = UcxSettings.resolve(Map.of(), none::get,
                Map.of("UCX_KEEPALIVE_INTERVAL", "3s")::get);
        assertNull(fromEnv.ucxConfig().get("KEEPALIVE_INTERVAL"), "UCX reads its own variable");
        assertThrows(IllegalArgumentException.class, () -> UcxSettings.resolve(Map.of("ucx.tsl", "tcp")));
        assertThrows(IllegalArgumentException.class, () -> UcxSettings.resolve(Map.of("ucx.config.proto", "y")));
        assertThrows(IllegalArgumentException.class, () -> UcxSettings.resolve(Map.of("ucx.keepalive", " ")));
    }
}
