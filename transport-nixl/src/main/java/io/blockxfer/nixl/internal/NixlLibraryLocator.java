package io.blockxfer.nixl.internal;

import io.blockxfer.transport.internal.natives.NativesFolder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Finds {@code libnixl_capi.so} without loading it. The order, first match wins:
 * <ol>
 *   <li>the system property {@value #LIB_PROPERTY}: the path of the library (an explicit choice:
 *       if it does not exist, nothing else is tried);</li>
 *   <li>the environment variable {@value #LIB_ENV}, likewise;</li>
 *   <li>the project folder {@code <natives>/nixl/.nixl_cuNN.mesonpy.libs/libnixl_capi.so} (either
 *       CUDA build), where {@code <natives>} is the project's natives folder ({@link NativesFolder}:
 *       the system property {@value #NATIVES_PROPERTY}, the environment variable
 *       {@value #NATIVES_ENV}, or a {@code natives/} folder found walking up from {@code user.dir}).
 *       With the system property {@value #VERSION_PROPERTY} (or the
 *       environment variable {@value #VERSION_ENV}) set to a release, e.g. {@code 1.4.1}, the
 *       folder {@code <natives>/nixl-1.4.1} or {@code <natives>/nixl-cu13-1.4.1} is used instead
 *       ({@code scripts/install-natives --nixl 1.4.1} fills it; {@code cu13-1.5.1} names the CUDA 13
 *       build's folder explicitly), and nothing else is tried;</li>
 *   <li>an installed Python package in the site-packages folders {@code python3} reports: the one
 *       the {@code nixl} meta package would import ({@code nixl_cuNN} for the CUDA major of the
 *       installed torch, else {@code nixl_cu13}, else {@code nixl_cu12}), or without the meta
 *       package {@code nixl_cu12}, then {@code nixl_cu13};</li>
 *   <li>the system: {@code libnixl_capi.so} by name, through the dynamic linker's search path.</li>
 * </ol>
 * Every step taken is written to the trace, so an unavailability message can say where it looked.
 *
 * <p><b>Thread safety:</b> immutable; {@link #locate()} may run concurrently (it starts a
 * {@code python3} process only when the earlier steps found nothing).
 */
public final class NixlLibraryLocator {

    /** System property: the path of {@code libnixl_capi.so}. */
    public static final String LIB_PROPERTY = "blockxfer.nixl.lib";
    /** Environment variable: the path of {@code libnixl_capi.so}. */
    public static final String LIB_ENV = "BLOCKXFER_NIXL_LIB";
    /** System property: the project's natives folder. */
    public static final String NATIVES_PROPERTY = NativesFolder.PROPERTY;
    /** Environment variable: the project's natives folder. */
    public static final String NATIVES_ENV = NativesFolder.ENV;
    /** System property: the NIXL release to load from {@code <natives>/nixl-<release>}. */
    public static final String VERSION_PROPERTY = "blockxfer.nixl.version";
    /** Environment variable: the NIXL release to load from {@code <natives>/nixl-<release>}. */
    public static final String VERSION_ENV = "BLOCKXFER_NIXL_VERSION";
    /** The library's file name. */
    public static final String LIBRARY = "libnixl_capi.so";
    /** The wheel flavours searched, in order, when the {@code nixl} meta package does not choose. */
    static final List<String> FLAVOURS = List.of("nixl_cu12", "nixl_cu13");
    /** The order the {@code nixl} meta package tries when it detects no CUDA stack. */
    static final List<String> META_FLAVOURS = List.of("nixl_cu13", "nixl_cu12");

    private final Function<String, String> properties;
    private final Function<String, String> environment;
    private final Path userDir;
    private final Function<List<String>, PythonSites> pythonSiteDirs;

    /** What {@link #locate()} found. */
    public enum Source {
        /** {@value #LIB_PROPERTY}. */
        PROPERTY,
        /** {@value #LIB_ENV}. */
        ENVIRONMENT,
        /** The project's natives folder. */
        PROJECT,
        /** An installed Python package. */
        PYTHON_PACKAGE,
        /** The dynamic linker's search path. */
        SYSTEM
    }

    /**
     * The outcome of a search: a path to load (absent for {@link Source#SYSTEM}, which loads by
     * name), where it came from, and the trace of every place looked at.
     *
     * @param library the file to load, or empty to load {@value #LIBRARY} by name
     * @param source which step found it
     * @param trace what each step saw
     */
    public record Location(Optional<Path> library, Source source, List<String> trace) {
        /** The plugin folder next to the library ({@code plugins/}), if there is one. */
        public Optional<Path> pluginDir() {
            return libraryFolder().map(dir -> dir.resolve("plugins")).filter(Files::isDirectory);
        }

        /** The wheel version from a {@code nixl_cuNN-X.Y.Z.dist-info} folder beside the library's folder. */
        public Optional<String> wheelVersion() {
            Optional<Path> libraryFolder = libraryFolder();
            if (libraryFolder.isEmpty()) {
                return Optional.empty();
            }
            Path site = libraryFolder.get().getParent();
            Path folderName = libraryFolder.get().getFileName();
            if (site == null || folderName == null || !Files.isDirectory(site)) {
                return Optional.empty();
            }
            // the dist-info of the wheel whose library this is: .nixl_cu13.mesonpy.libs -> nixl_cu13-X.Y.Z.dist-info
            String folder = folderName.toString();
            String glob = folder.startsWith(".nixl_cu") && folder.endsWith(".mesonpy.libs")
                    ? folder.substring(1, folder.length() - ".mesonpy.libs".length()) + "-*.dist-info"
                    : "nixl_cu*-*.dist-info";
            try (DirectoryStream<Path> dirs = Files.newDirectoryStream(site, glob)) {
                for (Path d : dirs) {
                    String name = d.getFileName().toString();
                    String version = name.substring(name.indexOf('-') + 1, name.length() - ".dist-info".length());
                    return Optional.of(name.substring(0, name.indexOf('-')).replace('_', '-') + " " + version);
                }
            } catch (IOException e) {
                return Optional.empty();
            }
            return Optional.empty();
        }

        /** The folder the library lies in (absolute); empty for {@link Source#SYSTEM}. */
        private Optional<Path> libraryFolder() {
            return library.flatMap(p -> Optional.ofNullable(p.toAbsolutePath().getParent()));
        }

        /** The trace as one line. */
        public String describe() {
            return String.join("; ", trace);
        }
    }

    /** A locator over this JVM's system properties, environment and {@code user.dir}. */
    public static NixlLibraryLocator fromSystem() {
        return new NixlLibraryLocator(System::getProperty, System.getenv()::get,
                Path.of(System.getProperty("user.dir", ".")), NixlLibraryLocator::askPython);
    }

    /** A locator over the given sources; for tests. */
    public NixlLibraryLocator(Function<String, String> properties, Function<String, String> environment, Path userDir,
            Function<List<String>, PythonSites> pythonSiteDirs) {
        this.properties = Objects.requireNonNull(properties, "properties");
        this.environment = Objects.requireNonNull(environment, "environment");
        this.userDir = Objects.requireNonNull(userDir, "userDir");
        this.pythonSiteDirs = Objects.requireNonNull(pythonSiteDirs, "pythonSiteDirs");
    }

    /** Looks for the library; never throws for a missing file (the trace says why). */
    public Location locate() {
        List<String> trace = new ArrayList<>();
        String explicit = blankToNull(properties.apply(LIB_PROPERTY));
        if (explicit != null) {
            trace.add("system property " + LIB_PROPERTY + "=" + explicit);
            return new Location(Optional.of(Path.of(explicit)), Source.PROPERTY, List.copyOf(trace));
        }
        explicit = blankToNull(environment.apply(LIB_ENV));
        if (explicit != null) {
            trace.add("environment " + LIB_ENV + "=" + explicit);
            return new Location(Optional.of(Path.of(explicit)), Source.ENVIRONMENT, List.copyOf(trace));
        }
        Optional<Path> natives = nativesDir(trace);
        String release = blankToNull(properties.apply(VERSION_PROPERTY));
        String releaseSource = "system property " + VERSION_PROPERTY;
        if (release == null) {
            release = blankToNull(environment.apply(VERSION_ENV));
            releaseSource = "environment " + VERSION_ENV;
        }
        if (release != null) {
            trace.add(releaseSource + "=" + release);
            if (natives.isEmpty()) {
                trace.add("no natives folder to look for NIXL " + release + " in");
                return new Location(Optional.of(Path.of("natives", "nixl-" + release, "." + FLAVOURS.getFirst()
                        + ".mesonpy.libs", LIBRARY)), Source.PROJECT, List.copyOf(trace));
            }
            List<String> dirs = release.startsWith("cu") ? List.of("nixl-" + release)
                    : List.of("nixl-" + release, "nixl-cu13-" + release);
            for (String dir : dirs) {
                for (String flavour : FLAVOURS) {
                    Path candidate = libraryIn(natives.get().resolve(dir), flavour);
                    if (Files.isRegularFile(candidate)) {
                        trace.add("project folder: found " + candidate);
                        return new Location(Optional.of(candidate), Source.PROJECT, List.copyOf(trace));
                    }
                }
            }
            trace.add("project folder " + natives.get().resolve("nixl-" + release) + " holds no NIXL wheel (run"
                    + " scripts/install-natives --nixl " + release + ")");
            return new Location(Optional.of(libraryIn(natives.get().resolve("nixl-" + release), FLAVOURS.getFirst())),
                    Source.PROJECT, List.copyOf(trace));
        }
        if (natives.isPresent()) {
            for (String flavour : FLAVOURS) {
                Path candidate = libraryIn(natives.get().resolve("nixl"), flavour);
                if (Files.isRegularFile(candidate)) {
                    trace.add("project folder: found " + candidate);
                    return new Location(Optional.of(candidate), Source.PROJECT, List.copyOf(trace));
                }
            }
            trace.add("project folder " + natives.get().resolve("nixl")
                    + " holds no NIXL wheel (run scripts/install-natives nixl)");
        }
        PythonSites python;
        try {
            python = pythonSiteDirs.apply(trace);
        } catch (RuntimeException e) {
            trace.add("python3 site-packages: " + e);
            python = PythonSites.NONE;
        }
        List<Path> sites = python.dirs();
        List<String> order = FLAVOURS;
        if (python.metaChoice().isPresent()) {
            String choice = python.metaChoice().get();
            order = choice.isEmpty() ? META_FLAVOURS : List.of(choice);
            trace.add("the nixl meta package chooses " + (choice.isEmpty() ? "the first of " + META_FLAVOURS
                    + " installed (no CUDA stack detected)" : choice));
        }
        for (String flavour : order) {
            for (Path site : sites) {
                Path candidate = libraryIn(site, flavour);
                if (Files.isRegularFile(candidate)) {
                    trace.add("Python package: found " + candidate);
                    return new Location(Optional.of(candidate), Source.PYTHON_PACKAGE, List.copyOf(trace));
                }
            }
        }
        if (!sites.isEmpty()) {
            trace.add("no " + String.join("/", order) + " package in " + sites);
        }
        trace.add("falling back to " + LIBRARY + " on the system library path");
        return new Location(Optional.empty(), Source.SYSTEM, List.copyOf(trace));
    }

    /** {@code <site>/.<flavour>.mesonpy.libs/libnixl_capi.so}. */
    static Path libraryIn(Path site, String flavour) {
        return site.resolve("." + flavour + ".mesonpy.libs").resolve(LIBRARY);
    }

    private Optional<Path> nativesDir(List<String> trace) {
        Optional<NativesFolder> natives = NativesFolder.find(properties, environment, userDir, trace);
        natives.ifPresent(n -> trace.add("natives folder " + n));
        return natives.map(NativesFolder::dir);
    }

    private static @Nullable String blankToNull(@Nullable String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }

    /**
     * What {@code python3} reports: its site-packages folders, and the backend package the
     * {@code nixl} meta package would import if it is installed.
     *
     * @param dirs the site-packages folders
     * @param metaChoice empty without the meta package; else {@code nixl_cuNN} for the CUDA major
     *     of the installed torch, or {@code ""} when no CUDA stack is found (the meta package then
     *     imports the first of {@link #META_FLAVOURS} installed)
     */
    public record PythonSites(List<Path> dirs, Optional<String> metaChoice) {
        /** Nothing found. */
        public static final PythonSites NONE = new PythonSites(List.of(), Optional.empty());

        /** Copies the list. */
        public PythonSites {
            dirs = List.copyOf(dirs);
        }
    }

    /** Asks {@code python3} for its site-packages folders and the meta package's choice (5 s at most). */
    static PythonSites askPython(List<String> trace) {
        // the meta package reads torch's CUDA version off disk (nixl_meta_utils) without importing torch
        String script = """
                import site,sysconfig
                d=[sysconfig.get_paths().get(k) for k in ('purelib','platlib')]
                d+=getattr(site,'getsitepackages',lambda:[])()
                d.append(getattr(site,'getusersitepackages',lambda:'')())
                print('\\n'.join(x for x in d if x))
                try:
                  import nixl_meta_utils as m
                  v=m._torch_cuda_version_from_disk()
                  print('META nixl_cu'+v.split('.')[0] if v else 'META ')
                except Exception:
                  pass
                """;
        Process p;
        try {
            p = new ProcessBuilder("python3", "-c", script).redirectErrorStream(true).start();
        } catch (IOException e) {
            trace.add("python3 not runnable: " + e.getMessage());
            return PythonSites.NONE;
        }
        try (InputStream in = p.getInputStream()) {
            p.getOutputStream().close();
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                trace.add("python3 did not answer within 5 s");
                return PythonSites.NONE;
            }
            String out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                trace.add("python3 failed (exit " + p.exitValue() + "): " + out.strip());
                return PythonSites.NONE;
            }
            Set<Path> dirs = new LinkedHashSet<>();
            Optional<String> meta = Optional.empty();
            for (String line : out.lines().map(String::strip).toList()) {
                if (line.startsWith("META")) {
                    meta = Optional.of(line.substring(4).strip());
                } else if (!line.isEmpty()) {
                    dirs.add(Path.of(line));
                }
            }
            trace.add("python3 site-packages: " + dirs);
            return new PythonSites(List.copyOf(dirs), meta);
        } catch (IOException e) {
            trace.add("reading python3's answer failed: " + e.getMessage());
            return PythonSites.NONE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            trace.add("interrupted while asking python3");
            return PythonSites.NONE;
        }
    }
}
