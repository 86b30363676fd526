package io.blockxfer.transport;

import io.blockxfer.transport.spi.Availability;
import io.blockxfer.transport.spi.TransportProvider;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Finds backends through {@link ServiceLoader} and opens transports.
 *
 * <p>Selection: a backend asked for by name wins, first through the system property
 * {@value #TRANSPORT_PROPERTY}, then through {@link TransportConfig#transport()}; it must be
 * available. Otherwise the available backend with the highest priority is chosen, ties broken by
 * name. When nothing fits, {@link TransportUnavailableException} lists every provider found and
 * why each is unavailable. A provider that fails to load or to answer is reported with its error
 * and never breaks discovery of the others. Selection probes providers (loading their native
 * libraries) in the order it needs them and stops at the chosen one, so opening one backend never
 * loads another backend's native libraries; only a failed selection probes every provider, to
 * list them all in its message.
 *
 * <p><b>Thread safety:</b> thread-safe; every call discovers afresh with the given class loader.
 */
public final class Transports {

    /** The system property that names the backend to use, e.g. {@code -Dblockxfer.transport=ucx}. */
    public static final String TRANSPORT_PROPERTY = "blockxfer.transport";

    private Transports() {
    }

    /** Every provider visible to this class's loader, best first. */
    public static List<ProviderInfo> providers() {
        return providers(Transports.class.getClassLoader());
    }

    /** Every provider visible to {@code loader}, available ones first, then by priority and name. */
    public static List<ProviderInfo> providers(ClassLoader loader) {
        List<ProviderInfo> found = new ArrayList<>();
        for (Candidate c : candidates(loader)) {
            found.add(c.describe());
        }
        found.sort(Comparator.comparing((ProviderInfo p) -> !p.isAvailable())
                .thenComparing(Comparator.comparingInt(ProviderInfo::priority).reversed())
                .thenComparing(ProviderInfo::name));
        return List.copyOf(found);
    }

    /**
     * A provider found by the service loader, named and ranked but not yet probed: its
     * {@link TransportProvider#availability()} (which loads its native library) runs only when
     * {@link #describe()} is called. Selection probes only the provider it needs, so opening one
     * backend never loads another backend's native libraries into the process.
     */
    private sealed interface Candidate {

        String name();

        int priority();

        ProviderInfo describe();
    }

    /** A provider that answered its name and priority. */
    private record Found(String name, int priority, TransportProvider provider) implements Candidate {

        @Override
        public ProviderInfo describe() {
            return Transports.describe(provider);
        }
    }

    /** A provider that failed to load or to answer; {@code describe} is why. */
    private record Broken(ProviderInfo describe) implements Candidate {

        @Override
        public String name() {
            return describe.name();
        }

        @Override
        public int priority() {
            return 0;
        }
    }

    /** Every provider, named and ranked (highest priority first, ties by name), none probed. */
    private static List<Candidate> candidates(ClassLoader loader) {
        List<Candidate> found = new ArrayList<>();
        Iterator<TransportProvider> it = ServiceLoader.load(TransportProvider.class, loader).iterator();
        for (int guard = 0; guard < 1000; guard++) {
            TransportProvider provider;
            try {
                if (!it.hasNext()) {
                    break;
                }
                provider = it.next();
            } catch (ServiceConfigurationError e) {
                found.add(new Broken(broken(e)));
                continue;
            }
            String name = provider.getClass().getName();
            try {
                name = Objects.requireNonNull(provider.name(), "name()");
                found.add(new Found(name, provider.priority(), provider));
            } catch (RuntimeException | LinkageError e) {
                found.add(new Broken(new ProviderInfo(name, 0,
                        Availability.unavailable("provider failed to answer: " + e, e), Set.of(), "",
                        Optional.empty())));
            }
        }
        found.sort(Comparator.comparingInt(Candidate::priority).reversed().thenComparing(Candidate::name));
        return found;
    }

    private static ProviderInfo broken(ServiceConfigurationError e) {
        String message = String.valueOf(e.getMessage());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("Provider (\\S+)").matcher(message);
        String name = m.find() ? m.group(1) : message;
        String cause = "provider failed to load: " + message + (e.getCause() != null ? ": " + e.getCause() : "");
        return new ProviderInfo(name, 0, Availability.unavailable(cause, e), Set.of(), "", Optional.empty());
    }

    private static ProviderInfo describe(TransportProvider provider) {
        String name = provider.getClass().getName();
        try {
            name = Objects.requireNonNull(provider.name(), "name()");
            int priority = provider.priority();
            Availability availability = Objects.requireNonNull(provider.availability(), "availability()");
            Set<Capability> capabilities = Objects.requireNonNull(provider.capabilities(), "capabilities()");
            String version = availability.isAvailable() ? Objects.requireNonNullElse(provider.nativeVersion(), "") : "";
            return new ProviderInfo(name, priority, availability, capabilities, version, Optional.of(provider));
        } catch (RuntimeException | LinkageError e) {
            return new ProviderInfo(name, 0, Availability.unavailable("provider failed to answer: " + e, e),
                    Set.of(), "", Optional.empty());
        }
    }

    /** The provider discovery would use for {@code config}, as {@link #open} chooses it. */
    public static TransportProvider select(TransportConfig config) {
        return select(config, Transports.class.getClassLoader());
    }

    /** As {@link #select(TransportConfig)}, discovering with {@code loader}. */
    public static TransportProvider select(TransportConfig config, ClassLoader loader) {
        Objects.requireNonNull(config, "config");
        String wanted = System.getProperty(TRANSPORT_PROPERTY);
        if (wanted == null || wanted.isBlank()) {
            wanted = config.transport().orElse(null);
        }
        return select(wanted, loader);
    }

    /**
     * The provider named {@code name}, or the best available one when {@code name} is null, blank
     * or {@code "auto"}.
     *
     * @throws TransportUnavailableException if that provider is unknown or unavailable, or none is
     *     available; the message lists every provider found
     */
    public static TransportProvider select(@Nullable String name, ClassLoader loader) {
        List<Candidate> found = candidates(loader);
        boolean auto = name == null || name.isBlank() || name.equals("auto");
        for (Candidate c : found) {
            if (auto || c.name().equals(name)) {
                ProviderInfo info = c.describe();
                if (info.isAvailable()) {
                    return info.provider().orElseThrow();
                }
                if (!auto) {
                    throw new TransportUnavailableException("transport '" + name + "' is unavailable: "
                            + info.availability().cause() + "; providers found: " + list(loader),
                            info.availability().error().orElse(null));
                }
            }
        }
        if (auto) {
            throw new TransportUnavailableException("no blockxfer transport is available; providers found: "
                    + list(loader));
        }
        throw new TransportUnavailableException("unknown transport '" + name + "'; providers found: " + list(loader));
    }

    /** Opens a transport with the provider {@link #select(TransportConfig)} chooses. */
    public static DataTransport open(TransportConfig config) {
        return select(config).open(config);
    }

    private static String list(ClassLoader loader) {
        List<ProviderInfo> found = providers(loader);
        if (found.isEmpty()) {
            return "none (is a backend jar on the class path or module path?)";
        }
        return found.stream().map(ProviderInfo::describe).collect(Collectors.joining("; "));
    }
}
