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

/**
 * Finds backends through {@link ServiceLoader} and opens transports.
 *
 * <p>Selection: a backend asked for by name wins, first through the system property
 * {@value #TRANSPORT_PROPERTY}, then through {@link TransportConfig#transport()}; it must be
 * available. Otherwise the available backend with the highest priority is chosen, ties broken by
 * name. When nothing fits, {@link TransportUnavailableException} lists every provider found and
 * why each is unavailable. A provider that fails to load or to answer is reported with its error
 * and never breaks discovery of the others.
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
        Iterator<TransportProvider> it = ServiceLoader.load(TransportProvider.class, loader).iterator();
        for (int guard = 0; guard < 1000; guard++) {
            TransportProvider provider;
            try {
                if (!it.hasNext()) {
                    break;
                }
                provider = it.next();
            } catch (ServiceConfigurationError e) {
                found.add(broken(e));
                continue;
            }
            found.add(describe(provider));
        }
        found.sort(Comparator.comparing((ProviderInfo p) -> !p.isAvailable())
                .thenComparing(Comparator.comparingInt(ProviderInfo::priority).reversed())
                .thenComparing(ProviderInfo::name));
        return List.copyOf(found);
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
    public static TransportProvider select(String name, ClassLoader loader) {
        List<ProviderInfo> found = providers(loader);
        if (name == null || name.isBlank() || name.equals("auto")) {
            return found.stream().filter(ProviderInfo::isAvailable).findFirst()
                    .flatMap(ProviderInfo::provider)
                    .orElseThrow(() -> new TransportUnavailableException(
                            "no blockxfer transport is available; providers found: " + list(found)));
        }
        for (ProviderInfo p : found) {
            if (p.name().equals(name)) {
                if (p.isAvailable()) {
                    return p.provider().orElseThrow();
                }
                throw new TransportUnavailableException("transport '" + name + "' is unavailable: "
                        + p.availability().cause() + "; providers found: " + list(found),
                        p.availability().error().orElse(null));
            }
        }
        throw new TransportUnavailableException("unknown transport '" + name + "'; providers found: " + list(found));
    }

    /** Opens a transport with the provider {@link #select(TransportConfig)} chooses. */
    public static DataTransport open(TransportConfig config) {
        return select(config).open(config);
    }

    private static String list(List<ProviderInfo> found) {
        if (found.isEmpty()) {
            return "none (is a backend jar on the class path or module path?)";
        }
        return found.stream().map(ProviderInfo::describe).collect(Collectors.joining("; "));
    }
}
