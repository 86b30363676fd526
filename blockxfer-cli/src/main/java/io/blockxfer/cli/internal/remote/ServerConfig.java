package io.blockxfer.cli.internal.remote;

import io.blockxfer.cli.internal.KeyFile;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.ProviderInfo;
import io.blockxfer.transport.spi.TransportProvider;
import java.io.IOException;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a bench server offers: the providers discovery found here (those available with
 * {@link Capability#CROSS_PROCESS}, and among the {@code --backend} names when given, are served),
 * the backend options of its targets, the most region memory one session may hold, the deployment
 * key (if any) that authenticates its control frames and signs its targets' descriptors, and how
 * descriptors are encoded.
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param providers every provider found on this host
 * @param backends the names to serve, or empty for every one that can be
 * @param options backend options of every target ({@code --option} on the server's command line)
 * @param maxMemoryBytes the most memory (regions and stand-ins) one session may hold
 * @param keys the deployment key file, or empty to serve without authentication
 * @param codec how descriptors travel
 */
public record ServerConfig(List<ProviderInfo> providers, List<String> backends, Map<String, String> options,
        long maxMemoryBytes, Optional<KeyFile> keys, DescriptorCodec codec) {

    /** Copies the collections. */
    public ServerConfig {
        providers = List.copyOf(providers);
        backends = List.copyOf(backends);
        options = Map.copyOf(options);
    }

    /** A config whose descriptors are signed with {@code keys} when present, and plain when not. */
    public ServerConfig(List<ProviderInfo> providers, List<String> backends, Map<String, String> options,
            long maxMemoryBytes, Optional<KeyFile> keys) {
        this(providers, backends, options, maxMemoryBytes, keys, DescriptorCodec.of(keys.map(KeyFile::ring)));
    }

    /** The key ring of the targets' transports, if the server has a key. */
    public Optional<DeploymentKeyRing> keyRing() {
        return keys.map(KeyFile::ring);
    }

    /** How a new control connection's frames are authenticated. */
    SessionAuth newSessionAuth() {
        return keys.map(SessionAuth::server).orElseGet(SessionAuth::none);
    }

    /** The length of the proof a stream connection sends after its token. */
    int streamProofBytes() {
        return keys.isPresent() ? SessionAuth.TAG_BYTES : 0;
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

    /** This host's name, as a server reports it in its welcome and its directory entry. */
    public static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown host";
        }
    }

    /** The names of the served providers. */
    public List<String> servedNames() {
        return providers.stream().filter(p -> refusal(p).isEmpty()).map(ProviderInfo::name).toList();
    }
}
