package io.blockxfer.transport;

import io.blockxfer.transport.spi.Availability;
import io.blockxfer.transport.spi.TransportProvider;
import java.util.Optional;
import java.util.Set;

/**
 * What discovery found about one provider: its name, priority, availability with the cause,
 * capabilities and native library version, or the error that kept it from loading at all.
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param name the provider's name, or its class name when it failed to load
 * @param priority its priority (0 when it failed to load)
 * @param availability whether it can run here, with the cause
 * @param capabilities its optional abilities (empty when it failed to load)
 * @param nativeVersion the version of its native library, or {@code ""}
 * @param provider the provider itself; empty when it failed to load
 */
public record ProviderInfo(String name, int priority, Availability availability, Set<Capability> capabilities,
        String nativeVersion, Optional<TransportProvider> provider) {

    /** Copies the set. */
    public ProviderInfo {
        capabilities = Set.copyOf(capabilities);
    }

    /** Whether the provider loaded and is available. */
    public boolean isAvailable() {
        return provider.isPresent() && availability.isAvailable();
    }

    /** One line: name, priority, and availability or its cause. */
    public String describe() {
        return name + " (priority " + priority + "): " + availability;
    }
}
