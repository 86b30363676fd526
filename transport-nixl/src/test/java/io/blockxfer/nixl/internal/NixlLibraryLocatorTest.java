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

/**
 * The lookup order: property, environment, project folder (or a chosen release beside it), Python
 * package (as the {@code nixl} meta package would choose), system.
 */
class NixlLibraryLocatorTest {

    private static NixlLibraryLocator locator(Map<String, String> props, Map<String, String> env, Path userDir,
            List<Path> sites) {
        return new NixlLibraryLocator(props::get, env::get, userDir,
                trace -> new NixlLibraryLocator.PythonSites(sites, Optional.empty()));
    }

    private static NixlLibraryLocator withMeta(Path userDir, List<Path> sites, String metaChoice) {
        return new NixlLibraryLocator(k -> null, k -> null, userDir,
                trace -> new NixlLibraryLocator.PythonSites(sites, Optional.of(metaChoice)));
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

    @Test
    void aChosenReleaseComesFromItsOwnFolderBesideTheDefault(@TempDir Path tmp) throws IOException {
        Path natives = tmp.resolve("natives");
        wheel(natives.resolve("nixl"), "nixl_cu12", "1.5.1");
        Path old = wheel(natives.resolve("nixl-1.4.1"), "nixl_cu12", "1.4.1");
        Path cu13 = wheel(natives.resolve("nixl-cu13-1.5.0"), "nixl_cu13", "1.5.0");
        var byProperty = locator(Map.of(NixlLibraryLocator.NATIVES_PROPERTY, natives.toString(),
                NixlLibraryLocator.VERSION_PROPERTY, "1.4.1"), Map.of(), tmp, List.of()).locate();
        assertEquals(Optional.of(old), byProperty.library());
        assertEquals(Optional.of("nixl-cu12 1.4.1"), byProperty.wheelVersion());
        var byEnv = locator(Map.of(NixlLibraryLocator.NATIVES_PROPERTY, natives.toString()),
                Map.of(NixlLibraryLocator.VERSION_ENV, "1.5.0"), tmp, List.of()).locate();
        assertEquals(Optional.of(cu13), byEnv.library());
        assertEquals(Optional.of("nixl-cu13 1.5.0"), byEnv.wheelVersion());
        var missing = locator(Map.of(NixlLibraryLocator.NATIVES_PROPERTY, natives.toString(),
                NixlLibraryLocator.VERSION_PROPERTY, "1.3.2"), Map.of(), tmp, List.of()).locate();
        assertEquals(NixlLibraryLocator.Source.PROJECT, missing.source(), "a chosen release never falls back");
        assertTrue(missing.describe().contains("scripts/install-natives --nixl 1.3.2"), missing.describe());
    }

    @Test
    void theMetaPackagesChoiceDecidesBetweenInstalledBuilds(@TempDir Path tmp) throws IOException {
        Path site = tmp.resolve("site-packages");
        Path cu12 = wheel(site, "nixl_cu12", "1.5.1");
        Path cu13 = wheel(site, "nixl_cu13", "1.5.1");
        Path empty = Files.createDirectories(tmp.resolve("work"));
        var plain = locator(Map.of(), Map.of(), empty, List.of(site)).locate();
        assertEquals(Optional.of(cu12), plain.library(), "without the meta package: nixl_cu12 first");
        var torch12 = withMeta(empty, List.of(site), "nixl_cu12").locate();
        assertEquals(Optional.of(cu12), torch12.library());
        assertEquals(Optional.of("nixl-cu12 1.5.1"), torch12.wheelVersion());
        var noCuda = withMeta(empty, List.of(site), "").locate();
        assertEquals(Optional.of(cu13), noCuda.library(), "no CUDA stack: the meta package imports nixl_cu13 first");
        assertEquals(Optional.of("nixl-cu13 1.5.1"), noCuda.wheelVersion());
        assertTrue(noCuda.describe().contains("meta package"), noCuda.describe());
    }
}
