package io.blockxfer.cli.internal.remote;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.ProviderInfo;
import io.blockxfer.transport.spi.TransportProvider;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a bench server offers: the providers discovery found here (those available with
 * {@link Capability#CROSS_PROCESS}, and among the {@code --backend} names when given, are served),
 * the backend options of its targets, the most region memory one session may hold, and how
 * descriptors are encoded.
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param providers every provider found on this host
 * @param backends the names to serve, or empty for every one that can be
 * @param options backend options of every target ({@code --option} on the server's command line)
 * @param maxMemoryBytes the most memory (regions and stand-ins) one session may hold
 * @param codec how descriptors travel
 */
public record ServerConfig(List<ProviderInfo> providers, List<String> backends, Map<String, String> options,
        long maxMemoryBytes, DescriptorCodec codec) {

    /** Copies the collections. */
    public ServerConfig {
        providers = List.copyOf(providers);
        backends = List.copyOf(backends);
        options = Map.copyOf(options);
    }

    /** Why {@code p} is not served, or empty when it is. */
    Optional<String> refusal(ProviderInfo p) {
        if (!p.isAvailable()) {
            return Optional.of("unavailable on this host: " + p.availability().cause());
        }
        if (!p.capabilities().contains(Capability.CROSS_PROCESS)) {
            return Optional.of("its peers cannot live in different processes (no CROSS_PROCESS)");
        }
        if (!backends.isEmpty() && !backends.contains(p.name())) {
            return Optional.of("not among the backends this server was started with");
        }
        return Optional.empty();
    }

    /** The served provider named {@code name}, if it is served. */
    Optional<TransportProvider> served(String name) {
        return providers.stream().filter(p -> p.name().equals(name) && refusal(p).isEmpty()).findFirst()
                .flatMap(ProviderInfo::provider);
    }

    /** The names of the served providers. */
    public List<String> servedNames() {
        return providers.stream().filter(p -> refusal(p).isEmpty()).map(ProviderInfo::name).toList();
    }
}
