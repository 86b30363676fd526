package io.blockxfer.cli.internal;

import io.blockxfer.transport.ProviderInfo;
import io.blockxfer.transport.Transports;
import io.blockxfer.transport.spi.TransportProvider;
import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * Where commands look for backends: the class path of the tool, plus the jars and directories of
 * {@code --classpath}, loaded in a child class loader so a provider from a jar outside this
 * repository is found by {@link java.util.ServiceLoader} like a built-in one. A picocli mixin.
 *
 * <p><b>Thread safety:</b> not thread-safe; one per command invocation.
 */
public final class ProviderSource {

    @Option(names = "--classpath", paramLabel = "JAR", split = ",",
            description = "Extra jars or directories holding backends (separate with ',' or '"
                    + "${sys:path.separator}', or repeat the option).")
    private List<String> classpath = new ArrayList<>();

    private ClassLoader loader;

    /** For picocli. */
    public ProviderSource() {
    }

    /** The extra class path entries, checked to exist. */
    public List<Path> entries() {
        List<Path> paths = new ArrayList<>();
        for (String item : classpath) {
            for (String part : item.split(File.pathSeparator)) {
                if (part.isBlank()) {
                    continue;
                }
                Path p = Path.of(part.strip());
                if (!Files.exists(p)) {
                    throw CliException.usage("--classpath entry '" + part + "' does not exist");
                }
                paths.add(p.toAbsolutePath().normalize());
            }
        }
        return paths;
    }

    /** The class loader that sees the tool's backends and those of {@code --classpath}. */
    public ClassLoader loader() {
        if (loader == null) {
            List<Path> paths = entries();
            ClassLoader parent = ProviderSource.class.getClassLoader();
            if (paths.isEmpty()) {
                loader = parent;
            } else {
                URL[] urls = new URL[paths.size()];
                for (int i = 0; i < urls.length; i++) {
                    try {
                        urls[i] = paths.get(i).toUri().toURL();
                    } catch (MalformedURLException e) {
                        throw CliException.usage("--classpath entry '" + paths.get(i) + "' is not a usable path");
                    }
                }
                loader = new URLClassLoader("blockxfer-extra-backends", urls, parent);
            }
        }
        return loader;
    }

    /** Every provider found, best first. */
    public List<ProviderInfo> providers() {
        return Transports.providers(loader());
    }

    /**
     * The available provider named {@code name}, or the best available one for {@code auto}.
     *
     * @throws io.blockxfer.transport.TransportUnavailableException naming every provider found
     */
    public TransportProvider select(String name) {
        return Transports.select(name, loader());
    }
}
