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
import org.jspecify.annotations.Nullable;
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

    private @Nullable ClassLoader loader;

    /** For picocli. */
    public ProviderSource() {
    }

    /** The extra class path entries, checked to exist. */
    public List<Path> entries() {
        List<Path> paths = new ArrayList<>();
        for (String item : classpath) {
            for (String part : item.split(File.pathSeparator, -1)) {
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
        ClassLoader l = loader;
        if (l == null) {
            List<Path> paths = entries();
            ClassLoader parent = ProviderSource.class.getClassLoader();
            if (paths.isEmpty()) {
                l = parent;
            } else {
                URL[] urls = new URL[paths.size()];
                for (int i = 0; i < urls.length; i++) {
                    try {
                        urls[i] = paths.get(i).toUri().toURL();
                    } catch (MalformedURLException e) {
                        throw CliException.usage("--classpath entry '" + paths.get(i) + "' is not a usable path");
                    }
                }
                l = new URLClassLoader("blockxfer-extra-backends", urls, parent);
            }
            loader = l;
        }
        return l;
    }

    /** Every provider found, best first. */
    public List<ProviderInfo> providers() {
        return Transports.providers(loader());
    }

    /**
     * The available provider named {@code name}, or the best available one for {@code auto}.
     *
     * @throws CliException a usage error (exit 2) for a name no provider has, listing the names
     *     found; a failure (exit 1) for a provider that is unavailable here, or when nothing is
     *     available; in both cases every provider's cause is the {@linkplain CliException#detail()
     *     detail} shown under {@code --verbose}
     */
    public TransportProvider select(String name) {
        List<ProviderInfo> found = providers();
        if (name == null || name.isBlank() || name.equals("auto")) {
            return found.stream().filter(ProviderInfo::isAvailable).findFirst().flatMap(ProviderInfo::provider)
                    .orElseThrow(() -> new CliException("no backend is available here (see 'blockxfer backends',"
                            + " or add --verbose for the causes)").withDetail(causes(found)));
        }
        for (ProviderInfo p : found) {
            if (p.name().equals(name)) {
                if (p.isAvailable()) {
                    return p.provider().orElseThrow();
                }
                throw new CliException("backend '" + name + "' is unavailable here (see 'blockxfer backends', or add"
                        + " --verbose for the cause)").withDetail(causes(found));
            }
        }
        String known = found.isEmpty() ? "none found" : "known: " + String.join(", ",
                found.stream().map(ProviderInfo::name).toList());
        throw CliException.usage("unknown backend '" + name + "' (" + known + ")").withDetail(causes(found));
    }

    /** One line per provider: its name, priority and availability with the full cause. */
    public static String causes(List<ProviderInfo> found) {
        if (found.isEmpty()) {
            return "no provider found (is a backend jar on the class path or in --classpath?)";
        }
        return String.join("\n", found.stream().map(ProviderInfo::describe).toList());
    }
}
