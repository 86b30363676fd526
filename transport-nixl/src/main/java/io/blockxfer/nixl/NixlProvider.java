package io.blockxfer.nixl;

import com.google.auto.service.AutoService;
import io.blockxfer.nixl.internal.NixlEngine;
import io.blockxfer.nixl.internal.NixlProbe;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.TransportUnavailableException;
import io.blockxfer.transport.spi.Availability;
import io.blockxfer.transport.spi.ManagedTransport;
import io.blockxfer.transport.spi.TransportProvider;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * The {@code nixl} backend: NVIDIA NIXL's C library ({@code libnixl_capi.so} of the
 * {@code nixl-cu12} or {@code nixl-cu13} wheels, certified releases 1.0.0 to 1.5.1, 1.5.1 by
 * default) through the Foreign Function and Memory API. {@link #nativeVersion()} names the release
 * found and the certified range; a release outside it is unavailable with that cause. One NIXL agent per
 * transport, with the UCX backend by default; WRITE and READ; peers in this process or others,
 * including plain NIXL agents such as Python's {@code nixl_agent}; notifications on transfers and
 * without them, carried by NIXL's own (a plain NIXL agent gets and sends the bare message). Options are in
 * {@link NixlOptions}; per-transfer telemetry is the feature {@link NixlTelemetry}.
 *
 * <p>Where the library comes from, in order: the system property {@code blockxfer.nixl.lib}, the
 * environment variable {@code BLOCKXFER_NIXL_LIB}, the project's {@code natives/} folder (filled by
 * {@code scripts/install-natives}; {@code -Dblockxfer.nixl.version=1.4.1} picks
 * {@code natives/nixl-1.4.1}), an installed Python package {@code nixl-cu12} or {@code nixl-cu13}
 * (as the {@code nixl} meta package would choose), the system library path. The JVM needs {@code --enable-native-access} for this module (or
 * {@code ALL-UNNAMED} on the class path).
 *
 * <p><b>Thread safety:</b> thread-safe; the constructor touches no native code, and the
 * availability probe runs once per JVM.
 */
@AutoService(TransportProvider.class)
public final class NixlProvider implements TransportProvider {

    /** The provider name. */
    public static final String NAME = "nixl";

    /** What the backend supports. */
    public static final Set<Capability> CAPABILITIES = Set.copyOf(EnumSet.of(Capability.READ,
            Capability.CALLER_REGION, Capability.BACKEND_REGION, Capability.CROSS_PROCESS, Capability.TELEMETRY,
            Capability.NOTIFICATIONS));

    /** For {@link java.util.ServiceLoader}. */
    public NixlProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return 6;
    }

    @Override
    public Availability availability() {
        return NixlProbe.availability();
    }

    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
    }

    @Override
    public String nativeVersion() {
        return NixlProbe.version();
    }

    @Override
    public DataTransport open(TransportConfig config) {
        Objects.requireNonNull(config, "config");
        Availability availability = availability();
        if (!availability.isAvailable()) {
            throw new TransportUnavailableException("transport 'nixl' is unavailable: " + availability.cause(),
                    availability.error().orElse(null));
        }
        return new ManagedTransport(new NixlEngine(NAME, config), config, CAPABILITIES);
    }
}
