package io.blockxfer.nixl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lookup order: property, environment, project folder, Python package, system. */
class NixlLibraryLocatorTest {

    private static NixlLibraryLocator locator(Map<String, String> props, Map<String, String> env, Path userDir,
            List<Path> sites) {
        return new NixlLibraryLocator(props::get, env::get, userDir, trace -> sites);
    }

    private static Path wheel(Path site, String flavour, String version) throws IOException {
        Path lib = NixlLibraryLocator.libraryIn(site, flavour);
        Files.createDirectories(lib.getParent().resolve("plugins"));
        Files.writeString(lib, "x");
        Files.createDirectories(site.resolve(flavour + "-" + version + ".dist-info"));
        return lib;
    }

    @Test
    void explicitPropertyWinsEvenIfMissing(@TempDir Path tmp) throws IOException {
        Path natives = tmp.resolve("natives");
        wheel(natives.resolve("nixl"), "nixl_cu12", "1.5.1");
        var loc = locator(Map.of(NixlLibraryLocator.LIB_PROPERTY, "/nope/libnixl_capi.so",
                NixlLibraryLocator.NATIVES_PROPERTY, natives.toString()), Map.of(NixlLibraryLocator.LIB_ENV, "/env.so"),
                tmp, List.of()).locate();
        assertEquals(NixlLibraryLocator.Source.PROPERTY, loc.source());
        assertEquals(Optional.of(Path.of("/nope/libnixl_capi.so")), loc.library());
    }

    @Test
    void environmentComesNext(@TempDir Path tmp) {
        var loc = locator(Map.of(), Map.of(NixlLibraryLocator.LIB_ENV, "/env/libnixl_capi.so"), tmp, List.of())
                .locate();
        assertEquals(NixlLibraryLocator.Source.ENVIRONMENT, loc.source());
    }

    @Test
    void projectFolderFromPropertyEnvironmentOrAboveUserDir(@TempDir Path tmp) throws IOException {
        Path natives = tmp.resolve("natives");
        Path lib = wheel(natives.resolve("nixl"), "nixl_cu12", "1.5.1");
        var byProperty = locator(Map.of(NixlLibraryLocator.NATIVES_PROPERTY, natives.toString()), Map.of(),
                Path.of("/"), List.of()).locate();
        assertEquals(NixlLibraryLocator.Source.PROJECT, byProperty.source());
        assertEquals(Optional.of(lib), byProperty.library());
        assertEquals(Optional.of(lib.getParent().resolve("plugins")), byProperty.pluginDir());
        assertEquals(Optional.of("nixl-cu12 1.5.1"), byProperty.wheelVersion());
        var byEnv = locator(Map.of(), Map.of(NixlLibraryLocator.NATIVES_ENV, natives.toString()), Path.of("/"),
                List.of()).locate();
        assertEquals(Optional.of(lib), byEnv.library());
        Path deep = Files.createDirectories(tmp.resolve("a/b/c"));
        var walked = locator(Map.of(), Map.of(), deep, List.of()).locate();
        assertEquals(Optional.of(lib), walked.library());
        var missingProperty = locator(Map.of(NixlLibraryLocator.NATIVES_PROPERTY, tmp.resolve("gone").toString()),
                Map.of(), deep, List.of()).locate();
        assertEquals(Optional.of(lib), missingProperty.library(), "a natives property naming no folder is skipped");
        assertTrue(missingProperty.describe().contains("does not exist"), missingProperty.describe());
    }

    @Test
    void pythonPackageThenSystem(@TempDir Path tmp) throws IOException {
        Path site = tmp.resolve("site-packages");
        Path lib = wheel(site, "nixl_cu13", "1.5.1");
        Path empty = Files.createDirectories(tmp.resolve("work"));
        var py = locator(Map.of(), Map.of(), empty, List.of(tmp.resolve("other"), site)).locate();
        assertEquals(NixlLibraryLocator.Source.PYTHON_PACKAGE, py.source());
        assertEquals(Optional.of(lib), py.library());
        assertEquals(Optional.of("nixl-cu13 1.5.1"), py.wheelVersion());
        var sys = locator(Map.of(), Map.of(), empty, List.of(tmp.resolve("other"))).locate();
        assertEquals(NixlLibraryLocator.Source.SYSTEM, sys.source());
        assertTrue(sys.library().isEmpty());
        assertTrue(sys.describe().contains("system library path"), sys.describe());
    }
}
